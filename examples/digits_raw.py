"""Train a two-layer MLP on scikit-learn's handwritten digits with dyngrad: the demo on real data.

What it shows: ordinary PyTorch training code -- raw tensors with ``requires_grad``,
a hand-written numerically stable softmax cross-entropy, ``loss.backward()`` and a
manual SGD step under ``torch.no_grad()`` -- runs unchanged on dyngrad. Nothing
here is dyngrad-specific: change ``import dyngrad as torch`` to ``import torch``
and the same file trains with PyTorch (tests/test_examples.py checks both).

The data is scikit-learn's bundled ``load_digits`` (1,797 8x8 grey-scale images
of the digits 0-9; no download). A fixed-seed quarter is held out for testing.
The script prints the mean training loss of each epoch and the held-out test
accuracy at the end (about 97%), and saves the loss curve as a PNG (by default
``digits_raw_loss.png`` in the folder ``autograd-examples`` of the system temp folder; ``--plot PATH``
chooses the file).

Run it with::

    python examples/digits_raw.py  # with dyngrad, scikit-learn, tqdm, matplotlib installed
    python examples/digits_raw.py --epochs 30 --lr 0.1 --plot /tmp/loss.png
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # render to a file only: no display is needed (or wanted) on a server or in CI

import matplotlib.pyplot as plt  # noqa: E402 - must come after the backend is chosen
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from tqdm import tqdm  # noqa: E402

import dyngrad as torch  # noqa: E402 - swap for ``import torch`` to run the very same code on PyTorch

N_CLASSES = 10


# Outputs go to the system temp folder unless --plot says otherwise: running an example never
# writes into the repository, and each example has a file name of its own.
DEFAULT_PLOT = os.path.join(tempfile.gettempdir(), "autograd-examples", "digits_raw_loss.png")


def load_data(seed: int, test_size: float = 0.25) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Load the digits, scale the pixels to [0, 1] and split off a held-out test set.

    Args:
        seed: Seed of the train/test split, so every run tests on the same images.
        test_size: Fraction of the images held out for testing.

    Returns:
        ``(x_train, y_train, x_test, y_test)``: float32 images of shape ``(n, 64)``
        and int64 class labels of shape ``(n,)``.
    """
    digits = load_digits()
    # Pixels are integers 0..16; scaling to [0, 1] keeps the first layer's inputs
    # (and so its gradients) of order one, which lets a plain SGD step size work.
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    # Stratify so both splits keep the (nearly uniform) class balance.
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_size, random_state=seed, stratify=y)
    return torch.from_numpy(x_tr), torch.from_numpy(y_tr), torch.from_numpy(x_te), torch.from_numpy(y_te)


def init_params(n_in: int, n_hidden: int, n_out: int) -> list[torch.Tensor]:
    """Create the MLP's weights and biases as leaf tensors that require gradients.

    Args:
        n_in: Number of input features (64 pixels).
        n_hidden: Width of the hidden layer.
        n_out: Number of classes.

    Returns:
        ``[w1, b1, w2, b2]``.
    """
    # He initialisation: a standard deviation of sqrt(2 / fan_in) keeps the
    # variance of the activations roughly constant through a ReLU layer. Scale
    # first, then requires_grad_(): randn(..., requires_grad=True) * scale would
    # be the result of an op, not a leaf, and its .grad would stay None.
    w1 = (torch.randn(n_in, n_hidden) * math.sqrt(2.0 / n_in)).requires_grad_()
    b1 = torch.zeros(n_hidden).requires_grad_()
    w2 = (torch.randn(n_hidden, n_out) * math.sqrt(2.0 / n_hidden)).requires_grad_()
    b2 = torch.zeros(n_out).requires_grad_()
    return [w1, b1, w2, b2]


def forward(params: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Run the MLP: ``relu(x @ w1 + b1) @ w2 + b2``.

    Args:
        params: ``[w1, b1, w2, b2]`` from :func:`init_params`.
        x: A batch of images, shape ``(n, 64)``.

    Returns:
        The unnormalised class scores (logits), shape ``(n, 10)``.
    """
    w1, b1, w2, b2 = params
    hidden = torch.relu(x @ w1 + b1)
    return hidden @ w2 + b2


def cross_entropy(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean softmax cross-entropy, computed stably from the logits.

    Args:
        logits: Class scores, shape ``(n, classes)``.
        y: Target class indices, shape ``(n,)``.

    Returns:
        A scalar tensor: the mean of ``-log softmax(logits)[i, y[i]]``.
    """
    # exp() of a large logit overflows; softmax is unchanged by subtracting a
    # per-row constant, so shift each row by its max (the largest term becomes
    # exp(0) = 1). The max's own gradient contributions cancel out exactly.
    row_max, _ = logits.max(dim=1, keepdim=True)
    shifted = logits - row_max
    # -log softmax(logits)[i, y[i]] = log(sum_j exp(shifted[i, j])) - shifted[i, y[i]].
    # The log-sum-exp is >= 0 and never takes log(0), unlike computing softmax
    # first and then its log (which underflows to log(0) = -inf for unlikely classes).
    log_sum_exp = torch.log(torch.exp(shifted).sum(dim=1))
    # Advanced indexing picks each row's target score: row i, column y[i].
    rows = torch.arange(logits.shape[0])
    return (log_sum_exp - shifted[rows, y]).mean()


def accuracy(params: Sequence[torch.Tensor], x: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of ``x`` whose highest-scoring class is the label ``y``.

    Args:
        params: ``[w1, b1, w2, b2]``.
        x: Images, shape ``(n, 64)``.
        y: Labels, shape ``(n,)``.

    Returns:
        The accuracy, in [0, 1].
    """
    # Evaluation needs no graph: no_grad() saves recording it.
    with torch.no_grad():
        pred = forward(params, x).argmax(dim=1)
        return (pred == y).float().mean().item()


def train(
    params: Sequence[torch.Tensor],
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int,
    lr: float,
    batch_size: int,
    seed: int,
) -> list[float]:
    """Train ``params`` in place with mini-batch SGD.

    Args:
        params: Leaf tensors to update, ``[w1, b1, w2, b2]``.
        x: Training images, shape ``(n, 64)``.
        y: Training labels, shape ``(n,)``.
        epochs: Number of passes over the training set.
        lr: SGD step size.
        batch_size: Images per gradient step.
        seed: Seed of the shuffling order.

    Returns:
        The mean training loss of each epoch.
    """
    n = x.shape[0]
    # Only full batches: a last batch of a handful of images gives a very noisy
    # gradient, and when it is the final step it can undo much of the training.
    # The images left out change from epoch to epoch, as the order is reshuffled.
    n_batches = max(1, n // batch_size)
    # Shuffle with NumPy so that dyngrad and torch see the same batches (their
    # random streams differ); a fresh order each epoch decorrelates the steps.
    rng = np.random.default_rng(seed)
    history: list[float] = []
    bar = tqdm(range(epochs), desc="training", unit="epoch")
    for epoch in bar:
        order = torch.from_numpy(rng.permutation(n))
        total = 0.0
        for b in range(n_batches):
            idx = order[b * batch_size : (b + 1) * batch_size]
            loss = cross_entropy(forward(params, x[idx]), y[idx])
            loss.backward()
            # The update must not be recorded in the graph (and an in-place op on
            # a leaf that requires grad is an error outside no_grad).
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
                    # backward() accumulates into .grad; clear it for the next batch.
                    p.grad = None
            total += loss.item()
        history.append(total / n_batches)
        bar.set_postfix(loss=f"{history[-1]:.4f}")
        # tqdm.write prints above the bar instead of breaking it.
        tqdm.write(f"epoch {epoch + 1:3d}  mean train loss {history[-1]:.4f}")
    return history


def plot_losses(losses: Sequence[float], path: str) -> None:
    """Save the per-epoch training loss curve as a PNG.

    Args:
        losses: Mean training loss of each epoch.
        path: Where to write the image.
    """
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(range(1, len(losses) + 1), losses, marker="o", markersize=3)
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean training loss (cross-entropy)")
    ax.set_title("Two-layer MLP on sklearn digits")
    ax.set_yscale("log")  # the loss falls by orders of magnitude; a log scale shows the tail
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)  # free the figure: main() may be called many times (tests)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line.

    Args:
        argv: Arguments without the program name; ``None`` reads ``sys.argv``.

    Returns:
        The parsed options.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=50, help="passes over the training set (default: %(default)s)")
    parser.add_argument("--lr", type=float, default=0.1, help="SGD step size (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32, help="images per step (default: %(default)s)")
    parser.add_argument("--hidden", type=int, default=64, help="hidden layer width (default: %(default)s)")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the weights, split and shuffling (default: %(default)s)"
    )
    parser.add_argument(
        "--plot", default=DEFAULT_PLOT, help="PNG file for the loss curve (default: %(default)s)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Train on the digits, print the test accuracy and save the loss curve.

    Args:
        argv: Command-line arguments (without the program name); ``None`` reads ``sys.argv``.

    Returns:
        The accuracy on the held-out test images, in [0, 1].
    """
    args = parse_args(argv)
    torch.manual_seed(args.seed)  # reproducible initial weights
    x_train, y_train, x_test, y_test = load_data(args.seed)
    params = init_params(x_train.shape[1], args.hidden, N_CLASSES)
    losses = train(params, x_train, y_train, epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, seed=args.seed)
    acc = accuracy(params, x_test, y_test)
    print(f"test accuracy: {acc:.2%} ({x_test.shape[0]} held-out images)")
    os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
    plot_losses(losses, args.plot)
    print(f"loss curve saved to {args.plot}")
    return acc


if __name__ == "__main__":
    main()
