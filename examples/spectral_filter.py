"""Learn the cut-off frequency of a low-pass filter, and fit a signal by its spectrum.

An ordinary PyTorch program on complex numbers and ``torch.fft``: a noisy sum of sines is
filtered in the frequency domain by a smooth mask ``sigmoid((cutoff - f) / width)`` whose
cut-off is a learned parameter, trained so that the filtered signal matches the clean one.
Then a spectral (FFT magnitude) loss fits the amplitudes of a small sum of sines.

Run it with ``python examples/spectral_filter.py``; replacing the import line with
``import torch`` gives the same printed numbers (tests/test_science_examples.py checks that).
"""

from __future__ import annotations

import math

import numpy as np

import dyngrad as torch


def noisy_signal(n: int = 512, seed: int = 0):
    """Two low tones plus broadband noise, sampled at 512 Hz for one second (float64)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n) / n
    clean = np.sin(2 * math.pi * 5 * t) + 0.5 * np.sin(2 * math.pi * 12 * t)
    noisy = clean + 0.8 * rng.standard_normal(n)
    return torch.tensor(clean), torch.tensor(noisy)


def learn_cutoff(steps: int = 60) -> float:
    clean, noisy = noisy_signal()
    freqs = torch.fft.rfftfreq(noisy.shape[0], d=1 / noisy.shape[0]).double()  # Hz
    cutoff = torch.tensor(100.0, dtype=torch.float64, requires_grad=True)
    width = 2.0
    opt = torch.optim.Adam([cutoff], lr=2.0)
    spectrum = torch.fft.rfft(noisy)
    for step in range(steps):
        mask = torch.sigmoid((cutoff - freqs) / width)
        filtered = torch.fft.irfft(spectrum * mask, n=noisy.shape[0])
        loss = ((filtered - clean) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == steps - 1:
            print(f"step {step:3d}  loss {loss.item():.6f}  cutoff {cutoff.item():8.4f} Hz")
    return cutoff.item()


def fit_by_spectrum(steps: int = 200) -> torch.Tensor:
    """Recover the amplitudes of 3 tones from the magnitude of the target's spectrum."""
    n = 256
    t = torch.arange(n, dtype=torch.float64) / n
    tones = torch.stack([torch.sin(2 * math.pi * k * t) for k in (3, 7, 19)])  # (3, n)
    target = torch.tensor([1.5, -0.7, 0.3], dtype=torch.float64) @ tones
    target_mag = torch.fft.rfft(target, norm="ortho").abs()
    amplitude = torch.full((3,), 0.1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([amplitude], lr=0.05)
    for step in range(steps):
        mag = torch.fft.rfft(amplitude @ tones, norm="ortho").abs()
        loss = ((mag - target_mag) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:3d}  spectral loss {loss.item():.6f}")
    print("amplitudes (up to sign):", amplitude.detach().abs())
    return amplitude.detach()


def main() -> None:
    print("learning a low-pass cut-off")
    learn_cutoff()
    print("fitting amplitudes by the spectrum's magnitude")
    fit_by_spectrum()


if __name__ == "__main__":
    main()
