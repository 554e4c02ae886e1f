"""ResNet-18/50/101 written in torch for the VALUE baseline (imported only by the baseline).

The backbone follows He et al. (2016): a 7x7 stride-2 stem with max pooling, four stages
of BasicBlock (ResNet-18: 2-2-2-2) or Bottleneck (ResNet-50: 3-4-6-3, ResNet-101:
3-4-23-3, expansion 4) residual blocks, global average pooling (module names as
torchvision's, so its state_dicts load). As in the VALUE paper the classifier is replaced
by ``Dropout(0.1) -> Linear(in_features, 8*8*13)``; :class:`BoardNet` returns logits of
shape ``(N, 13, 64)`` so ``cross_entropy(logits, codes)`` is the per-square loss.

Weights start from scratch (Kaiming init) unless the user passes a state_dict file; a
torchvision-style ResNet state_dict loads into the backbone (its ``fc`` is skipped).
Nothing is downloaded.
"""

from __future__ import annotations

try:
    import torch
    from torch import nn
except ImportError:            # e.g. pytest --doctest-modules without the [baselines] extra
    import sys
    if "pytest" in sys.modules:
        import pytest
        pytest.skip("torch is not installed", allow_module_level=True)
    raise

N_SQUARES = 64
N_CLASSES = 13


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != planes:
            self.downsample = nn.Sequential(nn.Conv2d(cin, planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(planes))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(out + skip)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin: int, planes: int, stride: int = 1):
        super().__init__()
        width = planes
        out_c = planes * self.expansion
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_c, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_c)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or cin != out_c:
            self.downsample = nn.Sequential(nn.Conv2d(cin, out_c, 1, stride, bias=False),
                                            nn.BatchNorm2d(out_c))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        skip = x if self.downsample is None else self.downsample(x)
        return self.relu(out + skip)


class ResNet(nn.Module):
    def __init__(self, block, layers: list[int], num_outputs: int = 1000, width: int = 64):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        cin = width
        stages = []
        for i, n in enumerate(layers):
            planes = width * 2 ** i
            blocks = []
            for j in range(n):
                blocks.append(block(cin, planes, 2 if (j == 0 and i > 0) else 1))
                cin = planes * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.in_features = cin
        self.fc = nn.Linear(cin, num_outputs)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def features(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return torch.flatten(self.avgpool(x), 1)

    def forward(self, x):
        return self.fc(self.features(x))


ARCHS = {"resnet18": (BasicBlock, [2, 2, 2, 2]), "resnet50": (Bottleneck, [3, 4, 6, 3]),
         "resnet101": (Bottleneck, [3, 4, 23, 3])}


class BoardNet(nn.Module):
    """A ResNet whose ``fc`` is ``Dropout(0.1) -> Linear(in_features, 64*13)``."""

    def __init__(self, arch: str = "resnet18", dropout: float = 0.1, width: int = 64):
        super().__init__()
        block, layers = ARCHS[arch]
        self.backbone = ResNet(block, layers, width=width)
        self.backbone.fc = nn.Sequential(nn.Dropout(dropout),
                                         nn.Linear(self.backbone.in_features, N_SQUARES * N_CLASSES))

    def forward(self, x):
        """``(N, 3, H, W)`` images -> ``(N, 13, 64)`` logits (square 0 = a8)."""
        return self.backbone(x).view(-1, N_SQUARES, N_CLASSES).transpose(1, 2)


def load_weights(model: BoardNet, path) -> list[str]:
    """Load a state_dict file into ``model``: a BoardNet state_dict, or a plain ResNet one
    (keys like ``conv1.weight``; its ``fc.*`` is skipped). Returns the keys left at their
    initial values. A shape mismatch is an error naming the key."""
    from d3mkit.core.errors import UsageError
    import warnings
    try:
        with warnings.catch_warnings():   # torch warns (several lines) about foreign pickles
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is a usage error
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else \
            f"not a torch state_dict file (torch.load: {type(exc).__name__})"
        raise UsageError(f"could not read weights file: {why}", str(path)) from None
    if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
        state = state["state_dict"]
    if not isinstance(state, dict):
        raise UsageError(f"{path} does not hold a state_dict", str(path))
    if not any(k.startswith("backbone.") for k in state):
        state = {f"backbone.{k}": v for k, v in state.items() if not k.startswith("fc.")}
    own = model.state_dict()
    for k, v in state.items():
        if k in own and tuple(own[k].shape) != tuple(v.shape):
            raise UsageError(f"{path}: {k} has shape {tuple(v.shape)}, the model expects "
                             f"{tuple(own[k].shape)}", str(path))
    unknown = [k for k in state if k not in own]
    if unknown:
        raise UsageError(f"{path}: {len(unknown)} key(s) the model does not have, e.g. {unknown[0]}",
                         str(path))
    missing = [k for k in own if k not in state]
    model.load_state_dict(state, strict=False)
    return missing
