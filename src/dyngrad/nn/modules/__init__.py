"""The layers of dyngrad.nn (torch.nn.modules)."""

from __future__ import annotations

from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, InstanceNorm1d, InstanceNorm2d, LayerNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad2d,
)
from .pooling import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding
from .sync_batchnorm import SyncBatchNorm
from .transformer import (
    MultiheadAttention,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from .volumetric import *  # noqa: F403, E402 - 3-D layers, unpooling, shuffles, sampling (their own __all__)
from .volumetric import __all__ as _volumetric_all  # noqa: E402

__all__ = [*_volumetric_all,
    "SyncBatchNorm",
    "CELU", "ELU", "GELU", "GLU", "SELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid",
    "LogSoftmax", "Mish", "ReLU", "ReLU6", "Sigmoid", "SiLU", "Softmax", "Softmin", "Softplus", "Softsign", "Tanh",
    "Tanhshrink", "Threshold", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential",
    "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "CosineSimilarity", "PairwiseDistance", "Dropout",
    "Flatten", "Unflatten", "Bilinear", "Identity", "Linear", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss",
    "HuberLoss", "KLDivLoss", "L1Loss", "MSELoss", "NLLLoss", "SmoothL1Loss", "Module", "BatchNorm1d",
    "BatchNorm2d", "GroupNorm", "LayerNorm", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d",
    "MaxPool1d", "MaxPool2d", "Embedding", "GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell",
    "RNNCellBase", "MultiheadAttention", "TransformerEncoder", "TransformerEncoderLayer", "Transformer",
    "TransformerDecoder", "TransformerDecoderLayer",
    "Fold", "Unfold", "CircularPad1d", "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d",
    "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ZeroPad1d", "ZeroPad2d",
    "PReLU", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "InstanceNorm1d", "InstanceNorm2d",
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
]

# the loss modules of issue 12 (margin, embedding, likelihood, CTC)
from .loss import (  # noqa: E402
    CosineEmbeddingLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss2d,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)

__all__ += [
    "CosineEmbeddingLoss", "CTCLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
]

# activations, alpha dropout and RMSNorm of issue 12
from .activation_extra import Hardshrink, RMSNorm, RReLU, Softshrink  # noqa: E402

__all__ += ["Hardshrink", "RMSNorm", "RReLU", "Softshrink"]
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]
from .lazy import (  # noqa: E402
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyConv1d,
    LazyConv2d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyLinear,
)

__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
            "LazyConvTranspose2d", "LazyLinear"]
from .lazy3d import (  # noqa: E402
    LazyBatchNorm3d,
    LazyConv3d,
    LazyConvTranspose3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
)

__all__ += ["LazyBatchNorm3d", "LazyConv3d", "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
            "LazyInstanceNorm3d"]
from .linear_cross_entropy_loss import LinearCrossEntropyLoss  # noqa: E402
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]
