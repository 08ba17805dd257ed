"""Draw the autograd graph of the digits model (examples/digits_raw.py) to graph.svg.

Shows dyngrad.viz on a real model: the text tree of the loss's grad_fn graph, the
backward pass step by step, and the picture (SVG through Graphviz when the
``graphviz`` package and the ``dot`` program are installed; otherwise the DOT text
is written to graph.dot).

Run it with::

    python examples/draw_graph.py            # writes graph.svg (or graph.dot)
    python examples/draw_graph.py --out /tmp/g.svg
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import dyngrad as torch
from dyngrad import viz

sys.path.insert(0, str(Path(__file__).resolve().parent))  # to reuse the demo's model code
import digits_raw as digits  # noqa: E402


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="graph.svg", help="where to write the picture (.svg or .png)")
    parser.add_argument("--batch", type=int, default=8, help="images in the batch drawn")
    args = parser.parse_args(argv)

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
    try:
        if shutil.which("dot") is None:
            raise ImportError("the dot program is not installed")
        graph.render(str(out), format=out.suffix.lstrip(".") or "svg")
        written = str(out)
    except ImportError as e:
        written = str(out.with_suffix(".dot"))
        Path(written).write_text(graph.source)
        print(f"\n({e}; wrote the DOT text instead: render it with `dot -Tsvg {written}`)")

    print("\nThe backward pass, step by step:")
    with viz.record_backward(names=names) as record:
        loss.backward()
    for step in record.steps:
        print(f"{step.number:2d}. {step.node}")
    print(f"\nwrote {written}")
    return written


if __name__ == "__main__":
    main()
