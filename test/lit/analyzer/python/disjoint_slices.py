# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Multi-dimensional slices are the rows they keep: apex's spatial bottleneck fills a padded
# buffer's interior on one stream while another exchanges its halo rows, which never meet
# (`x[:, 1:h + 1]` against `x[:, :1]` and `x[:, h + 1:h + 2]`). Rows that do meet race.
# A loop that steps by the world size gathers a window of that many elements per iteration
# (DeepSpeed's distributed Muon): the next iteration's element, its rank past the window's
# start, lies past the window still being gathered. A window wider than the step, an element
# before the window's start, or a rank not known to be one (no less than 0) race.
# RUN: %check_streamrace %s %t
import torch
import torch.distributed as dist


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


def muon_update(momentum, grad):
    momentum.lerp_(grad, 0.05)


def gather_momentums_by_window(params, momentums, group):
    world_sz = dist.get_world_size(group)
    rank = dist.get_rank(group)
    handles = []
    for base_i in range(len(params))[::world_sz]:
        if base_i + rank < len(params):
            muon_update(momentums[base_i + rank], params[base_i + rank].grad)
        handles.append(dist.all_gather(momentums[base_i:base_i + world_sz],
                                       momentums[base_i + rank], group=group, async_op=True))
    for handle in handles:
        handle.wait()


def gather_momentums_by_window_stepping_by_range(params, momentums, group):
    world_sz = dist.get_world_size(group)
    rank = dist.get_rank(group)
    handles = []
    for base_i in range(0, len(params), world_sz):
        momentums[base_i + rank].lerp_(params[base_i + rank].grad, 0.05)
        handles.append(dist.all_gather(momentums[base_i:base_i + world_sz],
                                       momentums[base_i + rank], group=group, async_op=True))
    for handle in handles:
        handle.wait()


def gather_momentums_by_window_of_two_steps(params, momentums, group):
    world_sz = dist.get_world_size(group)
    rank = dist.get_rank(group)
    handles = []
    for base_i in range(0, len(params), world_sz):
        momentums[base_i + rank].lerp_(params[base_i + rank].grad, 0.05)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'momentums[*]' is read and written by lerp_ on the current stream while all_gather on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+2]]:40: note: all_gather writes 'momentums[*]' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        handles.append(dist.all_gather(momentums[base_i:base_i + 2 * world_sz],
                                       momentums[base_i + rank], group=group, async_op=True))
    for handle in handles:
        handle.wait()


def gather_momentums_before_the_window(params, momentums, group):
    world_sz = dist.get_world_size(group)
    rank = dist.get_rank(group)
    handles = []
    for base_i in range(0, len(params), world_sz):
        momentums[base_i + rank - 1].lerp_(params[base_i + rank].grad, 0.05)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'momentums[*]' is read and written by lerp_ on the current stream while all_gather on the process group's stream (group=group) may still be reading it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+3]]:40: note: all_gather reads 'momentums[*]' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        handles.append(dist.all_gather(momentums[base_i:base_i + world_sz],
                                       momentums[base_i + rank], group=group, async_op=True))
    for handle in handles:
        handle.wait()


def gather_momentums_by_an_offset_given(params, momentums, group, offset):
    world_sz = dist.get_world_size(group)
    handles = []
    for base_i in range(0, len(params), world_sz):
        momentums[base_i + offset].lerp_(params[base_i + offset].grad, 0.05)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'momentums[*]' is read and written by lerp_ on the current stream while all_gather on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+2]]:40: note: all_gather writes 'momentums[*]' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        handles.append(dist.all_gather(momentums[base_i:base_i + world_sz],
                                       momentums[base_i + offset], group=group, async_op=True))
    for handle in handles:
        handle.wait()


def scale_blocks_of_four(blocks, group):
    handles = []
    for start in range(0, len(blocks), 4):
        blocks[start + 1].mul_(2)
        handles.append(dist.all_gather(blocks[start:start + 4], blocks[start + 1], group=group,
                                       async_op=True))
    for handle in handles:
        handle.wait()


def scale_blocks_of_four_stepping_by_two(blocks, group):
    handles = []
    for start in range(0, len(blocks), 2):
        blocks[start + 1].mul_(2)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'blocks[range + 3]' is read and written by mul_ on the current stream while all_gather on the process group's stream (group=group) may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE+2]]:40: note: all_gather writes 'blocks[*]' on the process group's stream (group=group) here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: wait for the collective's work handle (`work.wait()`, or pass async_op=False) before this
        handles.append(dist.all_gather(blocks[start:start + 4], blocks[start + 1], group=group,
                                       async_op=True))
    for handle in handles:
        handle.wait()

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


# A slab's first row and its last, corrected on two streams (apex's halo correction): two rows
# whenever the slab is two rows high or more, which a halo exchange means. The last column
# crosses the first row, and the rows from an offset the caller gives to the end may include
# it: both race with its copy.
def halo_rows_corrected_on_two_streams(out, top, bottom):
    top_stream, bottom_stream = torch.cuda.Stream(), torch.cuda.Stream()
    n, h, w, c = list(out.shape)
    top_stream.wait_stream(torch.cuda.current_stream())
    bottom_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(top_stream):
        out[:, :1, :, :].copy_(top)
    with torch.cuda.stream(bottom_stream):
        out[:, h - 1:, :, :].copy_(bottom)
        out[:, :, :, -1:].zero_()
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out[*]' is read and written by zero_ on stream 'bottom_stream' while copy_ on stream 'top_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-5]]:9: note: copy_ writes 'out[*]' on stream 'top_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make stream 'bottom_stream' wait for stream 'top_stream' before this: `torch.cuda.current_stream().wait_stream(top_stream)`
    torch.cuda.current_stream().wait_stream(top_stream)
    torch.cuda.current_stream().wait_stream(bottom_stream)
    return out


def rows_from_an_offset_on_two_streams(out, top, rest, offset):
    top_stream, rest_stream = torch.cuda.Stream(), torch.cuda.Stream()
    top_stream.wait_stream(torch.cuda.current_stream())
    rest_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(top_stream):
        out[:, :1, :, :].copy_(top)
    with torch.cuda.stream(rest_stream):
        out[:, offset - 1:, :, :].copy_(rest)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'out[*]' is written by copy_ on stream 'rest_stream' while copy_ on stream 'top_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: copy_ writes 'out[*]' on stream 'top_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make stream 'rest_stream' wait for stream 'top_stream' before this: `torch.cuda.current_stream().wait_stream(top_stream)`
    torch.cuda.current_stream().wait_stream(top_stream)
    torch.cuda.current_stream().wait_stream(rest_stream)
    return out


# A halo `half` rows high (apex's halo exchanger): bounds that add two sizes (`h + half`) or
# a multiple of one (`h + 2 * half`) are compared as written, a slice's end against the next
# one's start. A middle that reaches into the bottom halo races with its fill.
def halo_of_a_given_height_disjoint(y, half):
    edge_stream, middle_stream = torch.cuda.Stream(), torch.cuda.Stream()
    n, c, h, w = list(y.shape)
    padded = torch.empty([n, c, h + 2 * half, w], dtype=y.dtype, device="cuda")
    top = padded[:, :, :half, :]
    middle = padded[:, :, half:h + half, :]
    bottom = padded[:, :, h + half:h + 2 * half, :]
    edge_stream.wait_stream(torch.cuda.current_stream())
    middle_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(edge_stream):
        top.zero_()
        bottom.zero_()
    with torch.cuda.stream(middle_stream):
        middle.copy_(y)
    torch.cuda.current_stream().wait_stream(edge_stream)
    torch.cuda.current_stream().wait_stream(middle_stream)
    return padded


def halo_of_a_given_height_overlapping(y, half):
    edge_stream, middle_stream = torch.cuda.Stream(), torch.cuda.Stream()
    n, c, h, w = list(y.shape)
    padded = torch.empty([n, c, h + 2 * half, w], dtype=y.dtype, device="cuda")
    top = padded[:, :, :half, :]
    middle = padded[:, :, half:h + 2 * half, :]
    bottom = padded[:, :, h + half:h + 2 * half, :]
    edge_stream.wait_stream(torch.cuda.current_stream())
    middle_stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(edge_stream):
        top.zero_()
        bottom.zero_()
    with torch.cuda.stream(middle_stream):
        middle.copy_(y)
        # CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'padded[*]' is written by copy_ on stream 'middle_stream' while zero_ on stream 'edge_stream' may still be writing it; no event or synchronization orders the two streams [streamrace-unsynchronized-cross-stream]
        # CHECK-MESSAGES: :[[@LINE-4]]:9: note: zero_ reads and writes 'padded[*]' on stream 'edge_stream' here
        # CHECK-MESSAGES: :[[@LINE-3]]:9: note: make stream 'middle_stream' wait for stream 'edge_stream' before this: `torch.cuda.current_stream().wait_stream(edge_stream)`
    torch.cuda.current_stream().wait_stream(edge_stream)
    torch.cuda.current_stream().wait_stream(middle_stream)
    return padded
