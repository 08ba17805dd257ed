"""SGD with momentum and weight decay under StepLR, then CosineAnnealingLR and ReduceLROnPlateau."""
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau, StepLR

w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)
sched = StepLR(opt, step_size=3, gamma=0.5)
for epoch in range(7):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
    sched.step()
    print(epoch, [round(v, 6) for v in sched.get_last_lr()], [round(v, 5) for v in w.tolist()])

opt = torch.optim.AdamW([w], lr=0.01)
cos = CosineAnnealingLR(opt, T_max=4)
lrs = []
for _ in range(5):
    opt.step()
    cos.step()
    lrs.append(round(opt.param_groups[0]["lr"], 6))
print(lrs)

opt = torch.optim.SGD([w], lr=1.0)
plateau = ReduceLROnPlateau(opt, patience=1, factor=0.1)
for metric in [1.0, 0.9, 0.95, 0.96, 0.97, 0.98]:
    plateau.step(metric)
    print(round(opt.param_groups[0]["lr"], 6))
print(opt.state_dict()["param_groups"][0]["lr"])
