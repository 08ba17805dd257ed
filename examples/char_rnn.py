"""Train a character-level LSTM language model on a Python source file with dyngrad.

What it shows: a recurrent model -- ``nn.Embedding`` -> ``nn.LSTM`` -> ``nn.Linear`` --
trained with ``nn.CrossEntropyLoss`` and ``optim.Adam`` on next-character
prediction, then sampled one character at a time, carrying the LSTM's ``(h, c)``
state from step to step. As in examples/digits.py, changing
``import dyngrad as torch`` to ``import torch`` runs the same file on PyTorch.

The text is the source of the standard library's ``textwrap`` module (any
Python installation has it: no download). Every ``--log-every`` steps the
script prints the mean loss since the last report and a short sample; the loss
starts near ``log(vocabulary size)`` (a uniform guess) and falls as the model
learns spelling, indentation and Python keywords.

Run it with::

    python examples/char_rnn.py                    # about a minute on 2 cores
    python examples/char_rnn.py --steps 2000 --hidden 256 --log-every 250
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import math
from collections.abc import Sequence

import numpy as np

import dyngrad as torch  # swap for ``import torch`` to run the very same code on PyTorch

nn = torch.nn  # reached through ``torch`` so that the import above is the only line to change


def load_text(module_name: str = "textwrap") -> str:
    """Return the source code of a standard-library module, as the training text.

    Args:
        module_name: A pure-Python module whose source file ships with Python.

    Returns:
        The module's source text.
    """
    path = inspect.getsourcefile(importlib.import_module(module_name))
    assert path is not None, f"{module_name} has no source file"
    with open(path, encoding="utf-8") as f:
        return f.read()


class CharLSTM(nn.Module):
    """Embedding -> LSTM -> Linear: predicts the next character from the ones before it."""

    def __init__(self, vocab_size: int, embed_dim: int, hidden_size: int) -> None:
        """Create the layers.

        Args:
            vocab_size: Number of distinct characters.
            embed_dim: Size of each character's learned vector.
            hidden_size: Size of the LSTM's hidden and cell states.
        """
        super().__init__()
        # An embedding is a one-hot input times a weight matrix, without
        # materialising the one-hot vectors.
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(
        self, x: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """Score the next character at every position.

        Args:
            x: Character indices, shape ``(batch, time)``.
            state: The LSTM's ``(h, c)`` to start from; ``None`` starts from zeros.

        Returns:
            ``(logits, state)``: logits of shape ``(batch, time, vocab)`` and the final ``(h, c)``.
        """
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


def sample(
    model: CharLSTM, chars: str, prompt: str, length: int, rng: np.random.Generator, temperature: float = 0.8
) -> str:
    """Generate text one character at a time from the model's predicted distribution.

    Args:
        model: The trained model.
        chars: The vocabulary: ``chars[i]`` is the character of index ``i``.
        prompt: Text to start from (its characters must be in ``chars``).
        length: Number of characters to generate after the prompt.
        rng: Random source of the draws (NumPy, so dyngrad and torch sample alike).
        temperature: Below 1 sharpens the distribution, trading variety for fewer typos.

    Returns:
        ``prompt`` followed by the generated characters.
    """
    index = {c: i for i, c in enumerate(chars)}
    model.eval()
    out = list(prompt)
    with torch.no_grad():
        # Feed the whole prompt once; afterwards only the newest character, since
        # the (h, c) state already summarises everything before it.
        x = torch.tensor([[index[c] for c in prompt]])
        state = None
        for _ in range(length):
            logits, state = model(x, state)
            probs = torch.softmax(logits[0, -1] / temperature, dim=0).numpy().astype(np.float64)
            nxt = int(rng.choice(len(chars), p=probs / probs.sum()))  # renormalise away float32 rounding
            out.append(chars[nxt])
            x = torch.tensor([[nxt]])
    model.train()
    return "".join(out)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line.

    Args:
        argv: Arguments without the program name; ``None`` reads ``sys.argv``.

    Returns:
        The parsed options.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="training steps (default: %(default)s)")
    parser.add_argument("--lr", type=float, default=1e-2, help="Adam step size (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32, help="sequences per step (default: %(default)s)")
    parser.add_argument("--seq-len", type=int, default=48, help="characters per sequence (default: %(default)s)")
    parser.add_argument("--hidden", type=int, default=128, help="LSTM state size (default: %(default)s)")
    parser.add_argument("--embed", type=int, default=32, help="character embedding size (default: %(default)s)")
    parser.add_argument("--log-every", type=int, default=200, help="steps between reports (default: %(default)s)")
    parser.add_argument("--sample-len", type=int, default=120, help="characters per sample (default: %(default)s)")
    parser.add_argument("--text", default="textwrap", help="stdlib module whose source is the text (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of weights, batches, samples (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Train the character model, printing the loss and a sample every ``--log-every`` steps.

    Args:
        argv: Command-line arguments (without the program name); ``None`` reads ``sys.argv``.

    Returns:
        The mean training loss over the last reporting window (nats per character).
    """
    args = parse_args(argv)
    torch.manual_seed(args.seed)  # reproducible initial weights
    # NumPy draws the batches and samples so that dyngrad and torch see the same ones.
    rng = np.random.default_rng(args.seed)

    text = load_text(args.text)
    chars = "".join(sorted(set(text)))
    data = torch.tensor([chars.index(c) for c in text])
    print(f"{len(text)} characters of {args.text}.py, {len(chars)} distinct; uniform guess loss {math.log(len(chars)):.3f}")

    model = CharLSTM(len(chars), args.embed, args.hidden)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    window: list[float] = []
    last = float("nan")
    for step in range(1, args.steps + 1):
        # Random windows of the text; the target is the input shifted by one character.
        starts = rng.integers(0, len(text) - args.seq_len - 1, size=args.batch_size)
        idx = torch.from_numpy(starts[:, None] + np.arange(args.seq_len + 1))
        chunk = data[idx]
        x, y = chunk[:, :-1], chunk[:, 1:]
        logits, _ = model(x)
        # CrossEntropyLoss wants (N, classes): fold time into the batch dimension.
        loss = loss_fn(logits.reshape(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        # LSTMs can produce rare huge gradients (exploding through time); clipping
        # the global norm keeps one bad batch from wrecking the weights.
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        window.append(loss.item())

        if step % args.log_every == 0 or step == args.steps:
            last = sum(window) / len(window)
            window.clear()
            print(f"step {step:5d}  loss {last:.4f}")
            print("  | " + sample(model, chars, "def ", args.sample_len, rng).replace("\n", "\n  | "))
    return last


if __name__ == "__main__":
    main()
