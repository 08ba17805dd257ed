"""L-BFGS (torch.optim.LBFGS): a limited-memory quasi-Newton method driven by a closure.

``step(closure)`` runs up to ``max_iter`` iterations (and about ``max_eval`` closure calls) on the
flattened parameters:

    d = -H g, with H the two-loop recursion over the last ``history_size`` pairs
        (s = t d, y = g_new - g_old, kept when y.s > 1e-10) and initial scale H_diag = y.s / y.y
    t = lr (first iteration: min(1, 1 / |g|_1) * lr), or a strong-Wolfe line search
        (cubic interpolation, c1 = 1e-4, c2 = 0.9) with ``line_search_fn="strong_wolfe"``
    stop when |g|_inf <= tolerance_grad, |t d|_inf <= tolerance_change,
        |loss - prev_loss| < tolerance_change, or g.d > -tolerance_change

The arithmetic is done on dyngrad tensors in torch's order, with the same mixture of Python floats
and 0-dim tensors (``t``, ``ro``, ``H_diag``, ``gtd`` are 0-dim tensors in the parameters' dtype), so the
iterates match torch's in float32 as well. State (under the first parameter): ``func_evals``, ``n_iter``,
``al``, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``.
Only one parameter group is supported (ValueError otherwise, as torch).
"""

from __future__ import annotations

from .._ops.join_split import cat
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1), (x2, f2, g2), clamped to ``bounds`` (default: the
    interval between x1 and x2); the interval's midpoint when the cubic has no real minimiser."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` from loss ``f`` (gradient ``g``, slope ``gtd``) for a step ``t`` meeting the
    strong Wolfe conditions: bracket a minimum (growing t by cubic extrapolation), then zoom in by
    safeguarded cubic interpolation. Returns (loss, flat grad, t, number of evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    # bracketing phase
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # extrapolate, at least 1% further and at most 10x
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        previous = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # zoom phase
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # keep t at least 10% of the bracket away from its ends when progress stalls
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.clone(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.clone(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """L-BFGS, a limited-memory quasi-Newton method (Nocedal & Wright, algorithm 7.4), as ``torch.optim.LBFGS``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        d = -H g (two-loop recursion over the last history_size curvature pairs)
        p += t d, with t = lr or the step of a strong-Wolfe line search (line_search_fn="strong_wolfe")

    Formula source: the PyTorch documentation of ``torch.optim.LBFGS``; Nocedal & Wright, *Numerical
    Optimization*, 2nd ed., algorithms 7.4 and 3.5.

    Args:
        params: an iterable of tensors (one parameter group only).
        lr (float): step length, or the line search's first trial step. Default 1.
        max_iter (int): iterations per ``step(closure)``. Default 20.
        max_eval (int or None): closure calls per step. Default ``max_iter * 5 // 4``.
        tolerance_grad (float): stop when the largest gradient element is below it. Default 1e-7.
        tolerance_change (float): stop when the step or the loss changes less than this. Default 1e-9.
        history_size (int): curvature pairs kept. Default 100.
        line_search_fn (str or None): None or ``"strong_wolfe"``. Default None.

    Raises:
        ValueError: a negative lr, or more than one parameter group (torch's texts).
        RuntimeError: a line_search_fn other than "strong_wolfe", at the first step (torch's text).

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")
            >>> def closure():
            ...     opt.zero_grad()
            ...     loss = ((w - torch.tensor([3.0, 0.5])) ** 2).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure)
            tensor(10.2500, grad_fn=<SumBackward0>)
            >>> w.detach()
            tensor([3.0000, 0.5000])
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # A complex parameter takes part as its real view (two real numbers per element), as in torch's LBFGS.

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        from .. import _creation
        from .._ops.complex import view_as_real

        views = []
        for p in self._params:
            view = _creation.zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
            views.append(view_as_real(view).reshape(-1) if view.is_complex() else view)
        return cat(views, 0)

    def _add_grad(self, step_size, update) -> None:
        from .._ops.complex import view_as_real

        offset = 0
        alpha = float(step_size)  # a 0-dim tensor step becomes a Python scalar, as torch's Scalar alpha
        for p in self._params:
            if p.is_complex():
                p = view_as_real(p)
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=alpha)
            offset += n

    def _clone_param(self) -> list:
        return [p.clone() for p in self._params]

    def _set_param(self, params_data) -> None:
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        with enable_grad():
            value = closure()
        loss = float(value)  # read in no_grad mode, as torch (no requires-grad conversion warning)
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """One L-BFGS step (up to ``max_iter`` iterations); ``closure`` must zero the grads, compute the loss,
        call backward and return the loss. Returns the loss of the first closure call."""
        for hook in list(self._optimizer_step_pre_hooks.values()):
            hook(self, (), {})
        self._opt_called = True
        with no_grad():
            loss = self._step(closure)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})
        return loss

    def _step(self, closure):
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")  # noqa: N806
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1  # noqa: N806
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only when the curvature condition holds
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # noqa: N806
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                # two-loop recursion: d = -H g
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-float(al[i]))
                d = r = q.mul(H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=float(al[i] - be_i))

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    # re-evaluate (not on the last iteration: the caller's next step() does)
                    with enable_grad():
                        value = closure()
                    loss = float(value)  # read in no_grad mode, as torch (no requires-grad conversion warning)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss
