"""dyngrad.utils (torch.utils): data loading and activation checkpointing."""
