"""dyngrad.func: composable function transforms (torch.func).

``vmap`` batches a function, ``grad``/``vjp``/``jacrev`` differentiate it in reverse mode,
``jvp``/``jacfwd``/``linearize`` in forward mode, ``hessian`` composes both, and
``functional_call`` runs a module with given parameters. They compose to any depth
(``vmap(grad(f))``, ``jacrev(jacrev(f))``, ``jacfwd(jacrev(f))``). See docs/func.md.
"""

from __future__ import annotations

from ._functional_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
