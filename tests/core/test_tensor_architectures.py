"""The Tensor Core table of each GPU family: the lookup by compute capability and name, and the types every GPU from
a compute capability on takes."""

from __future__ import annotations

from roofline.core.tensor_architectures import tensor_architecture, tensor_types_from


def test_a_gpu_is_looked_up_by_compute_capability_then_name():
    """The GTX 16 series (TU116/TU117) has no Tensor Cores; the other CC 7.5 GPUs (Turing) take FP16; GA100 adds
    TF32, BF16 and FP64; an unknown compute capability has no row."""
    assert tensor_architecture("7.5", "NVIDIA GeForce GTX 1660 SUPER").families == ()
    assert tensor_architecture("7.5", "Tesla T4").float_types == ("fp16",)
    assert set(tensor_architecture("8.0", "NVIDIA A100-PCIE-40GB").float_types) == {"fp16", "bf16", "tf32", "fp64"}
    assert tensor_architecture("6.1", "NVIDIA GeForce GTX 1080") is None


def test_the_types_every_gpu_takes_from_a_compute_capability_on():
    """By hand from the whitepapers (and the PTX ISA's mma notes): FP16 from Volta (7.0), TF32 and BF16 from GA100
    (8.0), FP8 from Ada (8.9), FP6 and FP4 from Blackwell (10.0); FP64 never (GA10x and GB20x take none)."""
    assert tensor_types_from() == {"fp16": (7, 0), "bf16": (8, 0), "tf32": (8, 0), "fp8": (8, 9), "fp6": (10, 0),
                                   "fp4": (10, 0)}
