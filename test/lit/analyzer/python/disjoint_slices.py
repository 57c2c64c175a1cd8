# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Multi-dimensional slices are the rows they keep: apex's spatial bottleneck fills a padded
# buffer's interior on one stream while another exchanges its halo rows, which never meet
# (`x[:, 1:h + 1]` against `x[:, :1]` and `x[:, h + 1:h + 2]`). Rows that do meet race.
# RUN: %check_streamrace %s %t
import torch


def halo_exchange_disjoint(out, exchange):
    interior_stream, halo_stream = torch.cuda.Stream(), torch.cuda.Stream()
    n, h, w, c = list(out.shape)
    padded = torch.empty([n, h + 2, w, c], dtype=out.dtype, device="cuda")
    interior_stream.wait_stream(torch.cuda.current_stream())
    halo_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(interior_stream):
        padded[:, 1:h + 1, :, :].copy_(out)
    with torch.cuda.stream(halo_stream):
        top = padded[:, :1, :, :]
        bottom = padded[:, h + 1:h + 2, :, :]
        exchange(out[:, :1, :, :], out[:, h - 1:, :, :], top, bottom)
    torch.cuda.current_stream().wait_stream(interior_stream)
    torch.cuda.current_stream().wait_stream(halo_stream)
    return padded


def halo_exchange_overlapping(out, exchange):
    interior_stream, halo_stream = torch.cuda.Stream(), torch.cuda.Stream()
    n, h, w, c = list(out.shape)
    padded = torch.empty([n, h + 2, w, c], dtype=out.dtype, device="cuda")
    interior_stream.wait_stream(torch.cuda.current_stream())
    halo_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(interior_stream):
        padded[:, 1:h + 1, :, :].copy_(out)
    with torch.cuda.stream(halo_stream):
        edge = padded[:, h:h + 2, :, :]
        exchange(out[:, :1, :, :], out[:, h - 1:, :, :], edge, edge)
        # CHECK-MESSAGES: :[[@LINE-1]]:58: warning: 'padded[*]' is read by exchange on stream 'halo_stream' while copy_ on stream 'interior_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: copy_ writes 'padded[*]' on stream 'interior_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:58: note: make stream 'halo_stream' wait for stream 'interior_stream' before this: `torch.cuda.current_stream().wait_stream(interior_stream)`
    torch.cuda.current_stream().wait_stream(interior_stream)
    torch.cuda.current_stream().wait_stream(halo_stream)
    return padded


# The buffer and its halo rows made on each branch of a layout flag, the branches joined after
# it: a halo view is one layout's or the other's, each disjoint from its layout's interior, not
# the whole buffer.
def halo_rows_by_layout_disjoint(out, nhwc, exchange):
    interior_stream, halo_stream = torch.cuda.Stream(), torch.cuda.Stream()
    if nhwc:
        n, h, w, c = list(out.shape)
        padded = torch.empty([n, h + 2, w, c], dtype=out.dtype, device="cuda")
        interior_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(interior_stream):
            padded[:, 1:h + 1, :, :].copy_(out)
        top = padded[:, :1, :, :]
        bottom = padded[:, h + 1:h + 2, :, :]
    else:
        n, c, h, w = list(out.shape)
        padded = torch.empty([n, c, h + 2, w], dtype=out.dtype, device="cuda")
        interior_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(interior_stream):
            padded[:, :, 1:h + 1, :].copy_(out)
        top = padded[:, :, :1, :]
        bottom = padded[:, :, h + 1:h + 2, :]
    halo_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(halo_stream):
        exchange(top, bottom)
    torch.cuda.current_stream().wait_stream(interior_stream)
    torch.cuda.current_stream().wait_stream(halo_stream)
    return padded


def halo_rows_by_layout_overlapping(out, channels_last, exchange):
    interior_stream, halo_stream = torch.cuda.Stream(), torch.cuda.Stream()
    if channels_last:
        n, h, w, c = list(out.shape)
        padded = torch.empty([n, h + 2, w, c], dtype=out.dtype, device="cuda")
        interior_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(interior_stream):
            padded[:, 1:h + 1, :, :].copy_(out)
        top = padded[:, :1, :, :]
        bottom = padded[:, h + 1:h + 2, :, :]
    else:
        n, c, h, w = list(out.shape)
        padded = torch.empty([n, c, h + 2, w], dtype=out.dtype, device="cuda")
        interior_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(interior_stream):
            padded[:, :, 1:h + 1, :].copy_(out)
        top = padded[:, :, :1, :]
        bottom = padded[:, :, h:h + 2, :]
    halo_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(halo_stream):
        exchange(top, bottom)
        # CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'padded' is read by exchange on stream 'halo_stream' while copy_ on stream 'interior_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-7]]:13: note: copy_ writes 'padded[*]' on stream 'interior_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:23: note: make stream 'halo_stream' wait for stream 'interior_stream' before this: `torch.cuda.current_stream().wait_stream(interior_stream)`
    torch.cuda.current_stream().wait_stream(interior_stream)
    torch.cuda.current_stream().wait_stream(halo_stream)
    return padded
