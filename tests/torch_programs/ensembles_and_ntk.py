"""torch.func recipes on small networks: an ensemble of models run at once (stack_module_state + vmap over
functional_call), an empirical neural tangent kernel (jacrev per sample, contracted), and the Jacobian and
Hessian of a network in its input (jacrev, jacfwd, hessian)."""
import copy

import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call, hessian, jacfwd, jacrev, stack_module_state, vmap

rng = np.random.default_rng(1)


def make_model(seed):
    r = np.random.default_rng(seed)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).double()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(r.standard_normal(tuple(p.shape)) * 0.5))
    return model


# ---- an ensemble of five models, each on its own minibatch and all on the same one
models = [make_model(s) for s in range(5)]
params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()})
base = copy.deepcopy(models[0])  # its own weights are never read: functional_call swaps them


def run(params, buffers, x):
    return functional_call(base, (params, buffers), (x,))


data = torch.from_numpy(rng.standard_normal((5, 4, 3)))
own = vmap(run)(params, buffers, data)
same = vmap(run, in_dims=(0, 0, None))(params, buffers, data[0])
print(tuple(own.shape), tuple(same.shape))
print("matches each model:", all(torch.allclose(own[i], models[i](data[i]), atol=1e-14) for i in range(5)))
print(own.sum(dim=(1, 2)))
print(same.mean(dim=0))

# ---- empirical NTK of one model between two sets of points
net = models[1]
p = {k: v.detach() for k, v in net.named_parameters()}


def f_single(p, x):
    return functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)


x1 = torch.from_numpy(rng.standard_normal((4, 3)))
x2 = torch.from_numpy(rng.standard_normal((3, 3)))
j1 = vmap(jacrev(f_single), (None, 0))(p, x1)
j2 = vmap(jacrev(f_single), (None, 0))(p, x2)
ntk = sum(torch.einsum("Naf,Mbf->NMab", a.flatten(2), b.flatten(2)) for a, b in zip(j1.values(), j2.values()))
print("ntk", tuple(ntk.shape))
print(ntk[..., 0, 0])
print("trace", round(torch.einsum("NMaa->NM", ntk).sum().item(), 8))

# ---- Jacobian and Hessian of the network in its input
x = torch.from_numpy(rng.standard_normal(3))
jr = jacrev(lambda v: net(v))(x)
jf = jacfwd(lambda v: net(v))(x)
print("jacobian", tuple(jr.shape), "jacrev == jacfwd:", torch.allclose(jr, jf, atol=1e-14))
print(jr)
h = hessian(lambda v: net(v).sum())(x)
print("hessian symmetric:", torch.allclose(h, h.T, atol=1e-14))
print(h)
hp = hessian(lambda p: functional_call(net, p, (x,)).pow(2).sum())(p)
print({k: tuple(v[k].shape) for k, v in hp.items() if k == "0.bias"})
print(round(hp["2.bias"]["2.bias"].trace().item(), 10))
