"""A custom Dataset and DataLoader: batching, dicts, drop_last, a collate_fn, random_split sizes."""
import torch
from torch.utils.data import DataLoader, Dataset, random_split


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i), float(i) ** 2]), "label": i % 3}


ds = Squares(10)
print(len(ds), ds[3])
for batch in DataLoader(ds, batch_size=4):
    print(batch["x"].shape, batch["label"])
print(len(DataLoader(ds, batch_size=4, drop_last=True)))


def collate(items):
    xs = torch.stack([it["x"] for it in items])
    return xs.sum(0), [it["label"] for it in items]


for total, labels in DataLoader(ds, batch_size=5, collate_fn=collate):
    print(total, labels)
a, b = random_split(range(10), [7, 3], generator=torch.Generator().manual_seed(0))
print(len(a), len(b), sorted(list(a) + list(b)) == list(range(10)))
tuples = DataLoader([(torch.ones(2) * i, i) for i in range(4)], batch_size=2)
for xb, yb in tuples:
    print(xb, yb)
