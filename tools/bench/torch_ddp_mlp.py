#!/usr/bin/python3
"""The anchor of //tools:train --nproc (issue 20): one epoch of the
Fashion-MNIST MLP (784-512-256-10) or CNN (//tools:train's: two 3x3 convs
with ReLU and 2x2 max pooling, then a linear layer), SGD lr 0.1 momentum 0.9,
global batch 128, in Debian's PyTorch (python3-torch 1.13), with its
DistributedDataParallel on Gloo over NPROC processes of one thread each, or
in one process without DDP when NPROC is 1. SAMPLES limits the epoch to the
first images (as --train_samples); THREADS (default 1) is each process's
thread count (torch.set_num_threads, as //tools:train --threads). Prints the
epoch's seconds and samples/s.

  /usr/bin/python3 tools/bench/torch_ddp_mlp.py NPROC [DATA_DIR] [mlp|cnn] [SAMPLES] [THREADS]

Each rank takes its contiguous part of every global batch of one shared
permutation, as //tools:train does, so the runs compare like for like.
"""
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def make_model(kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256),
                             nn.ReLU(), nn.Linear(256, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


def worker(rank, nproc, data_dir, port, result, kind, samples, threads):
    torch.set_num_threads(threads)
    images = torch.from_numpy(read_idx(os.path.join(data_dir, "train-images-idx3-ubyte.gz")).copy())
    labels = torch.from_numpy(read_idx(os.path.join(data_dir, "train-labels-idx1-ubyte.gz")).copy())
    x = images.float().div(255).view(-1, 1, 28, 28)
    y = labels.long()
    if samples > 0:
        x, y = x[:samples], y[:samples]
    x = (x - x.mean()) / x.std()
    torch.manual_seed(1)
    model = make_model(kind)
    if nproc > 1:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
        dist.init_process_group("gloo", rank=rank, world_size=nproc)
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    perm = torch.randperm(x.size(0))
    batch = 128
    start = time.perf_counter()
    for b in range(0, x.size(0), batch):
        idx = perm[b:b + batch]
        if idx.numel() < nproc:
            continue
        part = idx.tensor_split(nproc)[rank]
        opt.zero_grad()
        loss = F.cross_entropy(model(x[part]), y[part])
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - start
    if rank == 0:
        result.put(seconds)
    if nproc > 1:
        dist.barrier()
        dist.destroy_process_group()


def main():
    nproc = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    data_dir = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/datasets/fashion-mnist"
    kind = sys.argv[3] if len(sys.argv) > 3 else "mlp"
    samples = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    ctx = mp.get_context("spawn")
    result = ctx.Queue()
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    procs = [ctx.Process(target=worker, args=(r, nproc, data_dir, port, result, kind, samples,
                                                            threads))
             for r in range(nproc)]
    for p in procs:
        p.start()
    seconds = result.get()
    for p in procs:
        p.join()
    n = samples if samples > 0 else 60000
    print("pytorch %s, %s, %d process(es) x %d thread(s): epoch %.2f s (%.0f samples/s)" %
          (torch.__version__, kind, nproc, threads, seconds, n / seconds))


if __name__ == "__main__":
    main()
