"""dyngrad.viz against exact expected text on fixed small graphs (the seed examples included),
DOT parsed back with pydot, SVG rendered where the dot program is installed, and each
"why is my grad None" cause."""

from __future__ import annotations

import shutil
import warnings

import pytest

import dyngrad as torch
from dyngrad import viz


def _seed_graph():
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    y = x * 3
    z = y.sum()
    return x, y, z


def test_show_seed_example(capsys) -> None:
    x, _, z = _seed_graph()
    assert viz.show(z, names={"x": x}) is None  # it prints (an interactive session shows it once)
    text = viz.tree(z, names={"x": x})
    assert text == (
        "[1] SumBackward0 -> float32[]\n"
        " └─ [2] MulBackward0 -> float32[2]  saved: other 3\n"
        "     └─ [3] AccumulateGrad -> x float32[2]"
    )
    assert capsys.readouterr().out == text + "\n"


def test_show_shared_subgraph_released_buffers_and_unnamed_leaf(capsys) -> None:
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    a = (w * x).exp()
    b = (a + a.sin()).sum()
    assert viz.tree(b, names={"x": x, "w": w}) == (
        "[1] SumBackward0 -> float32[]\n"
        " └─ [2] AddBackward0 -> float32[2]\n"
        "     ├─ [3] ExpBackward0 -> float32[2]  saved: result float32[2] 8 B\n"
        "     │   └─ [4] MulBackward0 -> float32[2]  saved: self float32[2] 8 B; other float32[2] 8 B\n"
        "     │       ├─ [5] AccumulateGrad -> w float32[2]\n"
        "     │       └─ [6] AccumulateGrad -> x float32[2]\n"
        "     └─ [7] SinBackward0 -> float32[2]  saved: self float32[2] 8 B\n"
        "         └─ (ExpBackward0, see [3])"
    )
    b.backward()
    assert viz.tree(b) == (
        "[1] SumBackward0 -> float32[]\n"
        " └─ [2] AddBackward0 -> float32[2]\n"
        "     ├─ [3] ExpBackward0 -> float32[2]  saved: released\n"
        "     │   └─ [4] MulBackward0 -> float32[2]  saved: released\n"
        "     │       ├─ [5] AccumulateGrad -> a leaf float32[2]\n"
        "     │       └─ [6] AccumulateGrad -> a leaf float32[2]\n"
        "     └─ [7] SinBackward0 -> float32[2]  saved: released\n"
        "         └─ (ExpBackward0, see [3])"
    )


def test_show_refuses_a_leaf() -> None:
    with pytest.raises(ValueError, match="it is a leaf"):
        viz.show(torch.tensor([1.0], requires_grad=True))


def test_record_backward_reproduces_the_seed_walkthrough() -> None:
    x, _, z = _seed_graph()
    with viz.record_backward(names={"x": x}) as rec:
        z.backward()
    assert str(rec) == (
        "1. tensor(1.) -> SumBackward0 -> tensor([1., 1.])\n"
        "2. tensor([1., 1.]) -> MulBackward0 -> tensor([3., 3.]), None\n"
        "3. tensor([3., 3.]) -> AccumulateGrad -> x.grad"
    )
    assert [s.node for s in rec.steps] == ["SumBackward0", "MulBackward0", "AccumulateGrad"]
    assert rec.steps[1].formula.startswith("mul(input, other)")
    # recording stops at the end of the block
    x.grad = None
    (x * 3).sum().backward()
    assert len(rec.steps) == 3


def test_record_backward_of_the_accumulation_seed() -> None:
    x = torch.tensor([2.0], requires_grad=True)
    with viz.record_backward(names={"x": x}) as rec:
        (x**2).backward()
    assert str(rec) == (
        "1. tensor([1.]) -> PowBackward0 -> tensor([4.])\n"
        "2. tensor([4.]) -> AccumulateGrad -> x.grad"
    )


def test_dot_nodes_edges_and_styles() -> None:
    pydot = pytest.importorskip("pydot")
    x, _, z = _seed_graph()
    (graph,) = pydot.graph_from_dot_data(viz.to_dot(z, names={"x": x}))
    nodes = {n.get_name(): n for n in graph.get_nodes() if n.get_name() not in ("node", "graph", "edge")}
    assert set(nodes) == {"n0", "n1", "n1_s0", "n2"}
    assert nodes["n0"].get_label() == '"SumBackward0\\nfloat32[]"'
    assert nodes["n2"].get_label() == '"x\\nfloat32[2]"'
    assert nodes["n2"].get_shape() == "ellipse" and nodes["n1"].get_shape() == "box"
    assert nodes["n1_s0"].get_shape() == "note"
    edges = {(e.get_source(), e.get_destination()) for e in graph.get_edges()}
    assert edges == {("n1", "n0"), ("n2", "n1"), ("n1_s0", "n1")}


@pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz dot program is not installed")
def test_render_svg_and_png(tmp_path) -> None:
    pytest.importorskip("graphviz")
    x, _, z = _seed_graph()
    graph = viz.draw(z, names={"x": x})
    svg = graph.render(str(tmp_path / "g.svg"))
    text = open(svg).read()
    assert text.lstrip().startswith("<?xml") and "SumBackward0" in text and "MulBackward0" in text
    png = graph.render(str(tmp_path / "g.png"))  # the format follows the extension
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    forced = graph.render(str(tmp_path / "picture"), format="png")  # an explicit format wins
    assert open(forced, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in graph._repr_svg_()
    with pytest.raises(RuntimeError, match="Graphviz cannot write the format 'nosuch'"):
        graph.render(str(tmp_path / "g.nosuch"))


def test_render_dot_text_needs_no_graphviz(tmp_path) -> None:
    x, _, z = _seed_graph()
    graph = viz.draw(z, names={"x": x})
    assert open(graph.render(str(tmp_path / "g.dot"))).read() == viz.to_dot(z, names={"x": x})


def test_render_without_the_dot_program_says_what_to_install(tmp_path, monkeypatch) -> None:
    pytest.importorskip("graphviz")
    x, _, z = _seed_graph()
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` on the PATH
    with pytest.raises(RuntimeError, match=r"drawing needs Graphviz's `dot` program, which is not installed: "
                                           r"apt-get install graphviz \(Debian/Ubuntu\), brew install graphviz"):
        viz.draw(z, names={"x": x}).render(str(tmp_path / "g.png"))
    assert not (tmp_path / "g.png").exists()


def test_why_no_grad_causes() -> None:
    x = torch.tensor([2.0, -1.0], requires_grad=True)
    y = x * 3
    loss = y.sum()
    assert viz.why_no_grad(y).startswith("it is not a leaf: it was made by an op (its grad_fn is MulBackward0)")
    assert viz.why_no_grad(x.double()).startswith("it is not a leaf: it was made by a conversion such as .to()")
    assert viz.why_no_grad(torch.tensor([1.0])).startswith("it does not require grad: create it with")
    assert viz.why_no_grad(x.detach()) == (
        "it does not require grad: it was cut from the graph by .detach(), so no gradient reaches it."
    )
    assert "by .data" in viz.why_no_grad(x.data)
    with torch.no_grad():
        made = x * 2
    assert viz.why_no_grad(made).startswith("it does not require grad")
    unused = torch.tensor([1.0], requires_grad=True)
    assert viz.why_no_grad(unused, loss).startswith("the loss does not depend on it")
    assert viz.why_no_grad(x, loss) == "backward() has not reached it yet: call loss.backward()."
    assert viz.why_no_grad(x) == "backward() has not been called on a result that depends on it."
    w = torch.tensor([-1.0, -2.0], requires_grad=True)
    w.relu().sum().backward()
    assert viz.why_no_grad(w).startswith("its gradient is zero")
    loss.backward()
    assert viz.why_no_grad(x) == "its .grad is set: backward() has reached it."


def test_graph_memory_counts_saved_bytes_once() -> None:
    x = torch.ones(1000, requires_grad=True)  # float32: 4000 bytes
    y = x.exp()  # saves its result (4000 B)
    z = (y * x).sum()  # saves y (the same array as exp's result: counted once) and x (4000 B)
    assert viz.graph_memory(z) == 8000
    z.backward()
    assert viz.graph_memory(z) == 0


def test_growth_monitor_warns_for_an_accumulated_loss() -> None:
    w = torch.tensor([1.0], requires_grad=True)
    monitor = viz.GrowthMonitor(patience=3)
    total = torch.zeros(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            total = total + (w * 2).sum()  # the classic bug: no .item()
            monitor.check(total)
    assert [type(c.message) for c in caught] == [viz.GraphGrowthWarning]
    assert "without .item()" in str(caught[0].message)
    steady = viz.GrowthMonitor(patience=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):
            steady.check((w * 2).sum())


def test_track_origins_names_the_users_lines() -> None:
    import inspect

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    here = inspect.currentframe().f_lineno
    with viz.track_origins():
        y = x.exp()  # here + 2
        y.add_(1)  # here + 3
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    first, second = str(info.value).split("\n")
    assert first.startswith("one of the variables needed for gradient computation has been modified")
    assert second == (
        f"The value was saved by ExpBackward0 created at {__file__}:{here + 2}; "
        f"it was last modified in place by add_() at {__file__}:{here + 3}."
    )
    # off again: torch's text alone
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "\n" not in str(info.value)


def test_track_origins_lines_in_module_code_and_through_library_functions() -> None:
    # Sites are stored as (code, instruction offset) and turned into lines only for the
    # error: check the lines in module-level code (a long line table), after a multi-line
    # statement, and for a node made inside dyngrad's own functions (F.softmax).
    source = "\n".join(
        ["import dyngrad", "import dyngrad.nn.functional as F"]
        + [f"pad{i} = {i}" for i in range(40)]  # line 3..42
        + [
            "x = dyngrad.tensor([1.0, 2.0], requires_grad=True)",  # 43
            "total = (x +",  # 44
            "         1)",  # 45
            "y = F.softmax(",  # 46
            "    total, dim=0)",  # 47
            "z = y * 2",  # 48
            "y.mul_(",  # 49
            "    3)",  # 50
        ]
    )
    scope: dict = {}
    with viz.track_origins():
        exec(compile(source, "script.py", "exec"), scope)
        with pytest.raises(RuntimeError) as info:
            scope["z"].sum().backward()
    # softmax saved its result, which mul_ changed
    second = str(info.value).split("\n")[1]
    # the lines a traceback shows for these statements (where each call starts)
    assert second == ("The value was saved by SoftmaxBackward0 created at script.py:46; "
                      "it was last modified in place by mul_() at script.py:49.")
