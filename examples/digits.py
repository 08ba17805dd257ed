"""Train a small LeNet-style CNN on scikit-learn's handwritten digits with dyngrad.

What it shows: an ordinary PyTorch training script -- ``nn.Sequential`` of
``Conv2d``/``MaxPool2d``/``Linear`` layers, ``nn.CrossEntropyLoss``, ``optim.Adam``,
a ``DataLoader`` over a ``TensorDataset`` shuffled by a seeded ``Generator`` --
runs unchanged on dyngrad. Nothing here is dyngrad-specific: change
``import dyngrad as torch`` to ``import torch`` and the same file trains with
PyTorch (tests/test_examples.py checks both).

The data is scikit-learn's bundled ``load_digits`` (1,797 8x8 grey-scale images
of the digits 0-9; no download). A fixed-seed, stratified quarter is held out
for testing. The script shows a tqdm bar over the epochs, prints the mean
training loss and held-out accuracy of each epoch, the final test accuracy
(about 98%), and saves the loss and accuracy curves as a PNG (by default
``digits_curves.png`` in the folder ``autograd-examples`` of the system temp folder; ``--plot PATH``
chooses the file).

(examples/digits_raw.py is the same task done with raw tensors, a hand-written
cross-entropy and a manual SGD step.)

Run it with::

    make demo                      # sets up .venv, then runs this script
    python examples/digits.py      # with dyngrad, scikit-learn, tqdm, matplotlib installed
    python examples/digits.py --epochs 20 --lr 0.003 --plot /tmp/digits.png
"""

from __future__ import annotations

import argparse
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

# Reached through ``torch`` so that the import above is the only line to change.
nn = torch.nn
DataLoader = torch.utils.data.DataLoader
TensorDataset = torch.utils.data.TensorDataset

N_CLASSES = 10


# Outputs go to the system temp folder unless --plot says otherwise: running an example never
# writes into the repository, and each example has a file name of its own.
DEFAULT_PLOT = os.path.join(tempfile.gettempdir(), "autograd-examples", "digits_curves.png")


def load_data(seed: int, test_size: float = 0.25) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Load the digits as 1x8x8 images in [0, 1] and split off a held-out test set.

    Args:
        seed: Seed of the train/test split, so every run tests on the same images.
        test_size: Fraction of the images held out for testing.

    Returns:
        ``(x_train, y_train, x_test, y_test)``: float32 images of shape ``(n, 1, 8, 8)``
        and int64 class labels of shape ``(n,)``.
    """
    digits = load_digits()
    # Pixels are integers 0..16; scaling to [0, 1] keeps the activations (and so
    # the gradients) of order one with the default layer initialisation.
    # Conv2d wants (batch, channels, height, width): one grey channel.
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    # Stratify so both splits keep the (nearly uniform) class balance.
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_size, random_state=seed, stratify=y)
    return torch.from_numpy(x_tr), torch.from_numpy(y_tr), torch.from_numpy(x_te), torch.from_numpy(y_te)


def make_model() -> nn.Module:
    """Build the LeNet-style CNN.

    Returns:
        A module mapping ``(n, 1, 8, 8)`` images to ``(n, 10)`` logits.
    """
    # padding=1 keeps each 3x3 convolution size-preserving, so only the pools
    # shrink the image: 8x8 -> 4x4 -> 2x2, leaving 32 channels x 2 x 2 features.
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 64),
        nn.ReLU(),
        nn.Linear(64, N_CLASSES),
    )


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Fraction of ``x`` whose highest-scoring class is the label ``y``.

    Args:
        model: The classifier.
        x: Images, shape ``(n, 1, 8, 8)``.
        y: Labels, shape ``(n,)``.

    Returns:
        The accuracy, in [0, 1].
    """
    model.eval()  # no layer here behaves differently, but it is the habit that matters (Dropout, BatchNorm)
    # Evaluation needs no graph: no_grad() saves recording it.
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
        acc = (pred == y).float().mean().item()
    model.train()
    return acc


def train(
    model: nn.Module,
    loader: DataLoader,
    x_test: torch.Tensor,
    y_test: torch.Tensor,
    *,
    epochs: int,
    lr: float,
) -> tuple[list[float], list[float]]:
    """Train ``model`` in place with Adam, measuring the held-out accuracy after each epoch.

    Args:
        model: The network to train.
        loader: Yields shuffled ``(images, labels)`` training batches.
        x_test: Held-out images, only to plot the accuracy curve (never trained on).
        y_test: Held-out labels.
        epochs: Number of passes over the training set.
        lr: Adam's step size.

    Returns:
        ``(losses, accuracies)``: the mean training loss and the test accuracy of each epoch.
    """
    # CrossEntropyLoss takes raw logits and applies a stable log-softmax itself,
    # so the model ends in a Linear layer, not a Softmax.
    loss_fn = nn.CrossEntropyLoss()
    # Adam's per-parameter step sizes make it far less sensitive to the learning
    # rate than plain SGD, which suits a demo that should just work.
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses: list[float] = []
    accuracies: list[float] = []
    model.train()
    bar = tqdm(range(epochs), desc="training", unit="epoch")
    for epoch in bar:
        total, count = 0.0, 0
        for xb, yb in loader:
            # backward() accumulates into .grad: clear the previous batch's first.
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            # Weight by batch size so a short last batch counts for what it is.
            total += loss.item() * len(yb)
            count += len(yb)
        losses.append(total / count)
        accuracies.append(accuracy(model, x_test, y_test))
        bar.set_postfix(loss=f"{losses[-1]:.4f}", acc=f"{accuracies[-1]:.3f}")
        # tqdm.write prints above the bar instead of breaking it.
        tqdm.write(f"epoch {epoch + 1:3d}  mean train loss {losses[-1]:.4f}  test accuracy {accuracies[-1]:.2%}")
    return losses, accuracies


def plot_curves(losses: Sequence[float], accuracies: Sequence[float], path: str) -> None:
    """Save the per-epoch training loss and test accuracy side by side as a PNG.

    Args:
        losses: Mean training loss of each epoch.
        accuracies: Held-out accuracy after each epoch.
        path: Where to write the image.
    """
    epochs = range(1, len(losses) + 1)
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, losses, marker="o", markersize=3)
    ax_loss.set_xlabel("epoch")
    ax_loss.set_ylabel("mean training loss (cross-entropy)")
    ax_loss.set_yscale("log")  # the loss falls by orders of magnitude; a log scale shows the tail
    ax_acc.plot(epochs, [100 * a for a in accuracies], marker="o", markersize=3, color="tab:green")
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("held-out accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.grid(True, alpha=0.3)
    fig.suptitle("LeNet-style CNN on sklearn digits")
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
    parser.add_argument("--epochs", type=int, default=40, help="passes over the training set (default: %(default)s)")
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam step size (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32, help="images per step (default: %(default)s)")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the weights, split and shuffling (default: %(default)s)"
    )
    parser.add_argument(
        "--plot", default=DEFAULT_PLOT, help="PNG file for the loss/accuracy curves (default: %(default)s)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Train on the digits, print the test accuracy and save the training curves.

    Args:
        argv: Command-line arguments (without the program name); ``None`` reads ``sys.argv``.

    Returns:
        The accuracy on the held-out test images, in [0, 1].
    """
    args = parse_args(argv)
    torch.manual_seed(args.seed)  # reproducible initial weights
    x_train, y_train, x_test, y_test = load_data(args.seed)
    model = make_model()
    # A generator of its own makes the shuffling order depend on --seed alone,
    # not on how many random numbers the weight initialisation happened to draw.
    generator = torch.Generator().manual_seed(args.seed)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=args.batch_size, shuffle=True, generator=generator)
    losses, accuracies = train(model, loader, x_test, y_test, epochs=args.epochs, lr=args.lr)
    acc = accuracy(model, x_test, y_test)
    print(f"test accuracy: {acc:.2%} ({x_test.shape[0]} held-out images)")
    os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
    plot_curves(losses, accuracies, args.plot)
    print(f"training curves saved to {args.plot}")
    return acc


if __name__ == "__main__":
    main()
