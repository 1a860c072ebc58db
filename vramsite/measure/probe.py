"""Where a run's memory figures come from: the CUDA allocator and driver, or, on a CPU, tensor bytes and RSS."""

from __future__ import annotations

import threading
import time

import psutil
import torch

MIB = 2 ** 20


class CudaProbe:
    """Memory as a CUDA device reports it: the allocator's peaks, and what the driver counts in use."""

    memory_from = "cuda"
    note = ("peaks: torch.cuda.max_memory_allocated above the allocation before each step; memory in use: "
            "total less free as the driver reports it (torch.cuda.mem_get_info), as nvidia-smi counts it")

    def __init__(self, device: str):
        self.device = torch.device(device)

    def total_mib(self) -> int:
        return torch.cuda.mem_get_info(self.device)[1] // MIB

    def used_mib(self) -> int:
        free, total = torch.cuda.mem_get_info(self.device)
        return (total - free) // MIB

    def allocated(self) -> int:
        return torch.cuda.memory_allocated(self.device)

    def start_peak(self) -> int:
        torch.cuda.synchronize(self.device)
        torch.cuda.reset_peak_memory_stats(self.device)
        return self.allocated()

    def peak_since(self, start: int) -> int:
        torch.cuda.synchronize(self.device)
        return torch.cuda.max_memory_allocated(self.device) - start

    def synchronize(self) -> None:
        torch.cuda.synchronize(self.device)

    def release(self) -> None:
        torch.cuda.empty_cache()

    def versions(self) -> dict:
        found = {"name": torch.cuda.get_device_name(self.device), "cuda": torch.version.cuda}
        return {key: value for key, value in found.items() if value}


class CpuProbe:
    """Memory on a CPU: the process's resident memory, sampled while a step runs, above what it was before."""

    memory_from = "cpu"
    note = ("weights and KV cache: bytes of the tensors built; peaks: the process's resident memory (psutil), "
            "sampled every millisecond, above what it was before the step; no device memory is counted")
    SAMPLE_S = 0.001

    def __init__(self, device: str = "cpu"):
        self.device = torch.device(device)
        self.process = psutil.Process()
        self._peak = 0
        self._sampler: threading.Thread | None = None
        self._stop = threading.Event()

    def total_mib(self) -> None:
        return None  # the host's memory is no card's: the file leaves it out

    def used_mib(self) -> None:
        return None

    def allocated(self) -> int:
        return self.process.memory_info().rss

    def start_peak(self) -> int:
        self.stop_sampling()
        start = self.allocated()
        self._peak = start
        self._stop.clear()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()
        return start

    def _sample(self) -> None:
        while not self._stop.is_set():
            self._peak = max(self._peak, self.allocated())
            time.sleep(self.SAMPLE_S)

    def stop_sampling(self) -> None:
        if self._sampler is not None:
            self._stop.set()
            self._sampler.join()
            self._sampler = None

    def peak_since(self, start: int) -> int:
        self.stop_sampling()
        return max(self._peak, self.allocated()) - start

    def synchronize(self) -> None:
        pass

    def release(self) -> None:
        pass

    def versions(self) -> dict:
        return {"name": "CPU"}


def probe_for(device: str):
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device is available (use --device cpu)")
        return CudaProbe(device)
    return CpuProbe(device)
