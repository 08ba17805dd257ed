"""Fit (in float64) a three-component Gaussian mixture by gradient ascent on MixtureSameFamily.log_prob, then report
its moments, cdf, a KL divergence and a sample's shape."""
import numpy as np
import torch
from torch.distributions import Categorical, MixtureSameFamily, Normal, kl_divergence

rng = np.random.default_rng(0)
data = torch.from_numpy(np.concatenate([rng.normal(-2.0, 0.5, 300), rng.normal(1.0, 0.8, 500),
                                        rng.normal(4.0, 0.3, 200)]))

logits = torch.zeros(3, dtype=torch.float64, requires_grad=True)
locs = torch.tensor([-1.0, 0.0, 1.0], dtype=torch.float64, requires_grad=True)
log_scales = torch.zeros(3, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([logits, locs, log_scales], lr=0.05)


def mixture():
    return MixtureSameFamily(Categorical(logits=logits), Normal(locs, log_scales.exp()))


for step in range(400):
    nll = -mixture().log_prob(data).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 100 == 0:
        print(f"step {step:3d}  nll {nll.item():.6f}")

gmm = mixture()
order = locs.detach().argsort()
print("weights", [round(w, 4) for w in gmm.mixture_distribution.probs.detach()[order].tolist()])
print("means  ", [round(m, 4) for m in locs.detach()[order].tolist()])
print("scales ", [round(s, 4) for s in log_scales.detach().exp()[order].tolist()])
with torch.no_grad():
    print(f"mixture mean {gmm.mean.item():.4f} variance {gmm.variance.item():.4f}")
    print("cdf at -2, 1, 4:", [round(v, 4) for v in gmm.cdf(torch.tensor([-2.0, 1.0, 4.0], dtype=torch.float64)).tolist()])
    components = gmm.component_distribution
    print("KL between the outer components:", round(kl_divergence(Normal(components.loc[order[0]],
                                                                          components.scale[order[0]]),
                                                                   Normal(components.loc[order[2]],
                                                                          components.scale[order[2]])).item(), 4))
print(gmm.sample((5,)).shape, gmm.batch_shape, gmm.event_shape)
print(gmm)
