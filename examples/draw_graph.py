"""Draw the autograd graph of the digits model (examples/digits_raw.py).

Shows dyngrad.viz on a real model: the text tree of the loss's grad_fn graph, the
backward pass step by step, and the picture, in the format of ``--out``'s extension
(.svg, .png, .pdf, ...; rendered by Graphviz: the ``graphviz`` package and the ``dot``
program). Without ``dot``, the DOT text is written beside it (``.dot``) and the
message says what to install. By default the picture goes to
``autograd-examples/draw_graph.svg`` in the system temp folder.

Run it with::

    python examples/draw_graph.py
    python examples/draw_graph.py --out graph.png
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import dyngrad as torch
from dyngrad import viz

sys.path.insert(0, str(Path(__file__).resolve().parent))  # to reuse the demo's model code
import digits_raw as digits  # noqa: E402


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        default=os.path.join(tempfile.gettempdir(), "autograd-examples", "draw_graph.svg"),
        help="where to write the picture; its extension (.svg, .png, .pdf) is the format (default: %(default)s)",
    )
    parser.add_argument("--batch", type=int, default=8, help="images in the batch drawn")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> str:
    args = parse_args(argv)
    torch.manual_seed(0)
    x_train, y_train, _, _ = digits.load_data(seed=0)
    params = digits.init_params(64, 32, 10)
    names = dict(zip(["w1", "b1", "w2", "b2"], params))
    loss = digits.cross_entropy(digits.forward(params, x_train[: args.batch]), y_train[: args.batch])

    print("The graph behind the loss:")
    viz.show(loss, names=names)
    print(f"\nIt holds {viz.graph_memory(loss)} bytes of saved tensors.")

    graph = viz.draw(loss, names=names)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        written = graph.render(str(out))
    except (ImportError, RuntimeError) as e:  # no graphviz package or no dot program: the message says which
        written = graph.render(str(out.with_suffix(".dot")))
        print(f"\n({e})\nWrote the DOT text instead; with Graphviz installed, `dot -Tsvg {written}` draws it.")

    print("\nThe backward pass, step by step:")
    with viz.record_backward(names=names) as record:
        loss.backward()
    for step in record.steps:
        print(f"{step.number:2d}. {step.node}")
    print(f"\nwrote {written}")
    return written


if __name__ == "__main__":
    main()
