package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.experiment.LabContext;
import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Check;
import dev.wirespeed.lab.result.Figure;
import dev.wirespeed.lab.result.Finding;
import dev.wirespeed.lab.result.FindingReads;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.Rule;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The targets of issue 48, judged on one run of the {@code shm} experiment, each at every placement
 * (and for the round trips, closed and open loop): the library's ring's round-trip p50 within
 * {@value #P50_OF_C}x the C ring's and below Agrona's and Aeron's; its p99.99 within {@value #P9999_OF_C}x
 * the C ring's, where the runs decide p99.99; its frames a second at least {@value #RATE_OF_C}x the C
 * ring's and {@value #RATE_OF_AERON}x Aeron's; its parked reader under {@value #IDLE_CORES} of a core while
 * nothing comes, and woken after idle within {@value #WAKE_OF_FUTEX}x the kernel's futex wake-up in C (a
 * bound from the issue, against a figure with no ring in it) and within {@value #WAKE_OF_C}x the C ring's
 * reader, which takes the same steps on the same layout. The many-writer stream, at each count of writers,
 * is held to the one-to-one stream's targets, which the issue sets for the one-to-one ring and the lab
 * carries over: the library's {@code ManyToOneRing} at least {@value #RATE_OF_C}x the C ring of its layout
 * and {@value #RATE_OF_AERON}x Aeron IPC's concurrent publications; and, a bar of the lab's own, at least
 * {@value #MANY_RATE_OF_AGRONA}x Agrona's {@code ManyToOneRingBuffer}, the many-writer ring in Java to be
 * matched. A target whose rows did not run (no C program) is left out; so is one that reads a figure the lab
 * sets aside ({@link ShmSetAside}), and a note says which and why.
 */
final class ShmFindings {
    /** The round-trip p50 bound against the C ring. */
    static final double P50_OF_C = 1.1;
    /** The round-trip p99.99 bound against the C ring. */
    static final double P9999_OF_C = 1.5;
    /** The least share of the C ring's frames a second. */
    static final double RATE_OF_C = 0.9;
    /** The least multiple of Aeron's frames a second. */
    static final double RATE_OF_AERON = 1.2;
    /**
     * The least share of Agrona's {@code ManyToOneRingBuffer}'s frames a second that the many-writer ring streams:
     * the lab's bar, not the issue's. Agrona's ring claims by a compare-and-set of its tail and commits by a
     * release store of the record's length word, as this one claims and commits, so the two do about the same
     * work a frame.
     */
    static final double MANY_RATE_OF_AGRONA = 0.9;
    /** The most CPU the parked reader may use while nothing comes, in cores. */
    static final double IDLE_CORES = 0.01;
    /** The wake-up bound against the kernel's futex wake-up. */
    static final double WAKE_OF_FUTEX = 2;
    /**
     * The wake-up bound against the C ring's parked reader: the round trip's bound, since the two readers
     * take the same steps and what is left between them is the JVM's share.
     */
    static final double WAKE_OF_C = 1.1;

    private final String experiment;
    private final Results<ShmCell, ShmResult> results;

    ShmFindings(String experiment, Results<ShmCell, ShmResult> results) {
        this.experiment = experiment;
        this.results = results;
    }

    /**
     * {@return the findings}: every target whose rows ran, p99.99 only where runs of {@code count} round
     * trips decide it (else noted in {@code lab})
     */
    List<Finding> judge(LabContext lab, long count) {
        List<Check> p50OfC = new ArrayList<>();
        List<Check> p50OfPeers = new ArrayList<>();
        List<Check> p9999OfC = new ArrayList<>();
        List<Check> rateOfC = new ArrayList<>();
        List<Check> rateOfAeron = new ArrayList<>();
        List<Check> manyOfC = new ArrayList<>();
        List<Check> manyOfAgrona = new ArrayList<>();
        List<Check> manyOfAeron = new ArrayList<>();
        List<Check> idleCpu = new ArrayList<>();
        List<Check> wake = new ArrayList<>();
        List<Check> wakeOfC = new ArrayList<>();
        FindingReads p50OfCReads = new FindingReads(lab::note);
        FindingReads p50OfPeersReads = new FindingReads(lab::note);
        FindingReads p9999OfCReads = new FindingReads(lab::note);
        FindingReads rateOfCReads = new FindingReads(lab::note);
        FindingReads rateOfAeronReads = new FindingReads(lab::note);
        FindingReads wakeReads = new FindingReads(lab::note);
        FindingReads wakeOfCReads = new FindingReads(lab::note);
        FindingReads manyOfCReads = new FindingReads(lab::note);
        FindingReads manyOfAgronaReads = new FindingReads(lab::note);
        FindingReads manyOfAeronReads = new FindingReads(lab::note);
        for (ShmCell cell : results.cases()) {
            Placement at = cell.placement();
            switch (results.get(cell)) {
                case ShmResult.Latencies l -> {
                    String where = at + ", " + (cell.part() == Part.OPEN_LOOP ? "open loop" : "closed loop");
                    Distribution ours = l.byPeer().get(Peer.WIRESPEED);
                    if (ours == null) {
                        continue;
                    }
                    for (Peer peer : List.of(Peer.AERON, Peer.AGRONA)) {
                        if (l.byPeer().containsKey(peer)) {
                            p50OfPeersReads.read(ShmSetAside.latency(experiment, cell, Peer.WIRESPEED, ours,
                                    Percentile.P50));
                            p50OfPeersReads.read(ShmSetAside.latency(experiment, cell, peer, l.byPeer().get(peer),
                                    Percentile.P50));
                            p50OfPeers.add(new Check(where, latency(cell, Peer.WIRESPEED, ours.get(Percentile.P50),
                                    Percentile.P50), latency(cell, peer, l.byPeer().get(peer).get(Percentile.P50),
                                    Percentile.P50)));
                        }
                    }
                    Distribution c = l.byPeer().get(Peer.C);
                    if (c != null) {
                        for (Percentile p : List.of(Percentile.P50, Percentile.P9999)) {
                            FindingReads reads = p == Percentile.P50 ? p50OfCReads : p9999OfCReads;
                            reads.read(ShmSetAside.latency(experiment, cell, Peer.WIRESPEED, ours, p));
                            reads.read(ShmSetAside.latency(experiment, cell, Peer.C, c, p));
                            (p == Percentile.P50 ? p50OfC : p9999OfC).add(new Check(where, latency(cell,
                                    Peer.WIRESPEED, ours.get(p), p), latency(cell, Peer.C, c.get(p), p)));
                        }
                    }
                }
                case ShmResult.Rates r when cell.part() == Part.MANY_STREAM -> {
                    ShmResult.Rate ours = r.byPeer().get(Peer.WIRESPEED);
                    if (ours == null) {
                        continue;
                    }
                    String where = at + ", " + cell.writers() + " writers";
                    for (Peer peer : List.of(Peer.C, Peer.AGRONA, Peer.AERON)) {
                        if (r.byPeer().containsKey(peer)) {
                            FindingReads reads = switch (peer) {
                                case C -> manyOfCReads;
                                case AGRONA -> manyOfAgronaReads;
                                default -> manyOfAeronReads;
                            };
                            reads.read(ShmSetAside.rate(experiment, cell, Peer.WIRESPEED, ours));
                            reads.read(ShmSetAside.rate(experiment, cell, peer, r.byPeer().get(peer)));
                            (switch (peer) {
                                case C -> manyOfC;
                                case AGRONA -> manyOfAgrona;
                                default -> manyOfAeron;
                            }).add(new Check(where, rate(cell, Peer.WIRESPEED, ours), rate(cell, peer,
                                    r.byPeer().get(peer))));
                        }
                    }
                }
                case ShmResult.Rates r -> {
                    ShmResult.Rate ours = r.byPeer().get(Peer.WIRESPEED);
                    if (ours == null) {
                        continue;
                    }
                    for (Peer peer : List.of(Peer.C, Peer.AERON)) {
                        if (r.byPeer().containsKey(peer)) {
                            FindingReads reads = peer == Peer.C ? rateOfCReads : rateOfAeronReads;
                            reads.read(ShmSetAside.rate(experiment, cell, Peer.WIRESPEED, ours));
                            reads.read(ShmSetAside.rate(experiment, cell, peer, r.byPeer().get(peer)));
                            (peer == Peer.C ? rateOfC : rateOfAeron).add(new Check(at.toString(), rate(cell,
                                    Peer.WIRESPEED, ours), rate(cell, peer, r.byPeer().get(peer))));
                        }
                    }
                }
                case ShmResult.Wakeups w -> {
                    ShmResult.Wakeup ours = w.byPeer().get(Peer.WIRESPEED);
                    if (ours == null) {
                        continue;
                    }
                    idleCpu.add(new Check(at.toString(), new Figure(Part.IDLE.row(Peer.WIRESPEED) + ", CPU while idle",
                            ShmExperiment.percent(ours.cpuShare()), Unit.CORE_PERCENT), new Figure("the target",
                            Stats.exact(100 * IDLE_CORES), Unit.CORE_PERCENT)));
                    for (Peer peer : List.of(Peer.FUTEX, Peer.C)) {
                        ShmResult.Wakeup theirs = w.byPeer().get(peer);
                        if (theirs != null) {
                            FindingReads reads = peer == Peer.FUTEX ? wakeReads : wakeOfCReads;
                            reads.read(ShmSetAside.wake(experiment, cell, Peer.WIRESPEED, ours));
                            reads.read(ShmSetAside.wake(experiment, cell, peer, theirs));
                            (peer == Peer.FUTEX ? wake : wakeOfC).add(new Check(at.toString(), new Figure(
                                    Part.IDLE.row(Peer.WIRESPEED) + " wake-up p50", ours.p50(), Unit.MICROSECONDS),
                                    new Figure(Part.IDLE.row(peer) + " wake-up p50", theirs.p50(), Unit.MICROSECONDS)));
                        }
                    }
                }
            }
        }
        List<Finding> findings = new ArrayList<>();
        if (!p50OfC.isEmpty()) {
            p50OfCReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the shared ring's "
                    + "round-trip p50 is within %.1fx the C ring's of the same layout, closed and open loop", P50_OF_C),
                    Rule.atMost(P50_OF_C), p50OfC));
        }
        if (!p50OfPeers.isEmpty()) {
            p50OfPeersReads.decide(findings, Finding.target(experiment, "the shared ring's round-trip p50 is below "
                    + "Aeron IPC's and Agrona's OneToOneRingBuffer's, closed and open loop", Rule.below(1),
                    p50OfPeers));
        }
        if (!p9999OfC.isEmpty() && lab.decides(experiment, Percentile.P9999, count)) {
            p9999OfCReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the shared ring's "
                    + "round-trip p99.99 is within %.1fx the C ring's, closed and open loop", P9999_OF_C),
                    Rule.atMost(P9999_OF_C), p9999OfC));
        }
        if (!rateOfC.isEmpty()) {
            rateOfCReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the shared ring "
                    + "streams 100-byte frames at least %.1fx as fast as the C ring of the same layout", RATE_OF_C),
                    Rule.atLeast(RATE_OF_C), rateOfC));
        }
        if (!rateOfAeron.isEmpty()) {
            rateOfAeronReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the shared ring "
                    + "streams 100-byte frames at least %.1fx as fast as Aeron IPC", RATE_OF_AERON),
                    Rule.atLeast(RATE_OF_AERON), rateOfAeron));
        }
        if (!manyOfC.isEmpty()) {
            manyOfCReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the many-to-one ring streams 100-byte "
                    + "frames from several writer processes at least %.1fx as fast as the C ring of the same layout",
                    RATE_OF_C), Rule.atLeast(RATE_OF_C), manyOfC));
        }
        if (!manyOfAgrona.isEmpty()) {
            manyOfAgronaReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the many-to-one ring streams 100-byte "
                    + "frames from several writer processes at least %.1fx as fast as Agrona's ManyToOneRingBuffer",
                    MANY_RATE_OF_AGRONA), Rule.atLeast(MANY_RATE_OF_AGRONA), manyOfAgrona));
        }
        if (!manyOfAeron.isEmpty()) {
            manyOfAeronReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the many-to-one ring streams 100-byte "
                    + "frames from several writer processes at least %.1fx as fast as Aeron IPC's concurrent "
                    + "publications", RATE_OF_AERON), Rule.atLeast(RATE_OF_AERON), manyOfAeron));
        }
        if (!idleCpu.isEmpty()) {
            findings.add(Finding.target(experiment, "the shared ring's parked reader uses under 1% of a core while "
                    + "nothing comes", Rule.below(1), idleCpu));
        }
        if (!wake.isEmpty()) {
            wakeReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the first frame after "
                    + "%,d ms idle reaches the parked reader within %.0fx the kernel's futex wake-up measured in C",
                    ShmExperiment.IDLE_MILLIS, WAKE_OF_FUTEX), Rule.atMost(WAKE_OF_FUTEX), wake));
        }
        if (!wakeOfC.isEmpty()) {
            wakeOfCReads.decide(findings, Finding.target(experiment, String.format(Locale.ROOT, "the first frame "
                    + "after %,d ms idle reaches the parked reader within %.1fx the C ring's of the same layout, whose "
                    + "reader takes the same steps", ShmExperiment.IDLE_MILLIS, WAKE_OF_C), Rule.atMost(WAKE_OF_C),
                    wakeOfC));
        }
        return findings;
    }

    private static Figure latency(ShmCell cell, Peer peer, Stats stats, Percentile p) {
        return new Figure(cell.part().row(peer) + " " + p.label(), stats, Unit.MICROSECONDS);
    }

    private static Figure rate(ShmCell cell, Peer peer, ShmResult.Rate rate) {
        return new Figure(cell.row(peer), rate.msgPerSec(), Unit.MSG_PER_S);
    }
}
