# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The checks: the engine tells them what it found unordered (two accesses, a release of
storage still in use, a wait on an event not recorded); each decides whether that is a finding
of its own and says it. One class per check, named as the C++ checks are."""
from .cross_stream import UnsynchronizedCrossStream
from .free_while_pending import FreeWhilePending
from .host_access import HostAccessBeforeSync
from .wait_unrecorded_event import WaitUnrecordedEvent
from ..suppressions import NONE as NO_SUPPRESSIONS

ALL = (UnsynchronizedCrossStream, HostAccessBeforeSync, WaitUnrecordedEvent, FreeWhilePending)
NAMES = tuple(check.name for check in ALL)


class Checks:
    def __init__(self, sources, enabled, suppressions=NO_SUPPRESSIONS):
        self.sources = sources          # path -> SourceFile
        self.enabled = enabled          # check name -> bool
        self.suppressions = suppressions
        self.reporting = False
        self.findings = []
        self._identities = set()
        self._yielding = []   # findings any other finding of the same race replaces
        # (finding, function): said only if no other starting point's walk followed the function
        self._unless_followed = []
        self.cross_stream = UnsynchronizedCrossStream()
        self.host_access = HostAccessBeforeSync()
        self.wait_unrecorded = WaitUnrecordedEvent()
        self.free_while_pending = FreeWhilePending()

    def add(self, finding, finishing=False):
        if finding is None or not (self.reporting or finishing) or \
                not self.enabled(finding.check):
            return
        source = self.sources.get(finding.location.path)
        if source is not None and source.ignores(finding.location.line, finding.check):
            return
        identities = finding.identity
        if any(identity in self._identities for identity in identities):
            return
        self._identities.update(identities)
        if self.suppressions.suppresses(finding):
            return
        self.findings.append(finding)

    # ---- what the engine reports --------------------------------------------------------------

    def unordered(self, earlier, later, state, frame, walker, across_calls=False,
                  unless_followed=None):
        if not self.reporting:
            return
        check = self.host_access if later.stream.kind == "host" else self.cross_stream
        finding = check.finding(earlier, later, state, frame, walker, across_calls)
        if unless_followed is not None:
            self._unless_followed.append((finding, unless_followed))
        else:
            self.add(finding)

    def unordered_with_the_caller(self, entry, later, state, frame, walker):
        """What a function is given, touched where the caller's work may not be done: said
        only where no finding names the same race with the work itself."""
        if self.reporting:
            self._yielding.append(self.cross_stream.finding(entry, later, state, frame, walker,
                                                            False))

    def finish(self, followed=frozenset()):
        """`followed`: the functions the reporting pass followed into from their callers."""
        for finding in self._yielding:
            self.add(finding, finishing=True)
        for finding, function in self._unless_followed:
            if function not in followed:
                self.add(finding, finishing=True)
        self._yielding, self._unless_followed = [], []

    def left_to_the_caller(self, access, function, registration, state, frame, walker):
        if self.reporting:
            self.add(self.cross_stream.left_to_the_caller(access, function, registration, state,
                                                          frame, walker))

    def handed_out_unsynchronized(self, fill, key, target, site, statement, state, frame,
                                  walker, returning, device_choice=None):
        if self.reporting:
            self.add(self.host_access.handed_out(fill, key, target, site, statement, state,
                                                 frame, walker, returning, device_choice))

    def returned_unordered(self, writes, key, caller, site, statement, state, frame, walker,
                           across_calls):
        if self.reporting:
            self.add(self.cross_stream.returned_unordered(writes, key, caller, site, statement,
                                                          state, frame, walker, across_calls))

    def released(self, tensor, node, state, frame, walker, scope_end=False, one_object=False,
                 storage_only=False):
        if self.reporting:
            self.add(self.free_while_pending.released(tensor, node, state, frame, walker,
                                                      scope_end, one_object, storage_only))

    def handed_over(self, value, node, state, frame, walker):
        if self.reporting:
            self.add(self.free_while_pending.handed_over(value, node, state, frame, walker))

    def block_retaken(self, made, use, handed, state, frame, walker):
        if self.reporting:
            self.add(self.free_while_pending.block_retaken(made, use, handed, state, frame,
                                                           walker))

    def unrecorded_field(self, store):
        if self.reporting:
            self.add(self.free_while_pending.unrecorded_field(store, self.sources))

    def wait_unrecorded_event(self, event, waiter, node, state, frame):
        if self.reporting:
            self.add(self.wait_unrecorded.finding(event, waiter, node, state, frame))
