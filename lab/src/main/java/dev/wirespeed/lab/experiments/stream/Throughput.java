package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Placement;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Stats;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.List;

/**
 * What a stream cell measured: one value per measured round of each of its client runs. The figures
 * are the medians of those rounds, with min and max; the rounds themselves are kept so that the passes
 * of a paired row (see {@link StreamCell#pass()}) merge into one row.
 *
 * @param mbRounds megabytes per second, at least one
 * @param msgRounds frames per second, empty where the case counts no frames ({@code iperf3})
 * @param cpuRounds the reading thread's CPU time per frame, empty where it is not measured
 * @param untimedMbRounds megabytes per second of the same client counting frames instead of timing its
 *     rounds (see {@link #setAside()}), its warm-up left out; empty where no such pass ran
 */
public record Throughput(List<Double> mbRounds, List<Double> msgRounds, List<Double> cpuRounds,
        List<Double> untimedMbRounds) {
    /** How far a row's timed figure may stray from its untimed pass's before the lab trusts neither. */
    public static final double TIMED_TOLERANCE = 0.15;

    /**
     * Copies the rounds.
     *
     * @throws IllegalArgumentException if there is no MB/s round
     */
    public Throughput {
        mbRounds = List.copyOf(mbRounds);
        msgRounds = List.copyOf(msgRounds);
        cpuRounds = List.copyOf(cpuRounds);
        untimedMbRounds = List.copyOf(untimedMbRounds);
        if (mbRounds.isEmpty()) {
            throw new IllegalArgumentException("a throughput needs at least one MB/s round");
        }
    }

    /**
     * Timed rounds alone, no untimed pass.
     *
     * @param mbRounds megabytes per second, at least one
     * @param msgRounds frames per second, empty where the case counts no frames
     * @param cpuRounds CPU time per frame, empty where it is not measured
     */
    public Throughput(List<Double> mbRounds, List<Double> msgRounds, List<Double> cpuRounds) {
        this(mbRounds, msgRounds, cpuRounds, List.of());
    }

    /**
     * {@return the same rounds with an untimed pass's}
     *
     * @param untimed megabytes per second of the pass's measured rounds
     */
    Throughput withUntimed(List<Double> untimed) {
        List<Double> all = new ArrayList<>(untimedMbRounds);
        all.addAll(untimed);
        return new Throughput(mbRounds, msgRounds, cpuRounds, all);
    }

    /**
     * {@return the same rounds with an untimed pass's}
     *
     * @param untimed the measured rounds of an untimed pass of the same client, its warm-up left out
     */
    Throughput withUntimedPass(List<ChildReport.Round> untimed) {
        return withUntimed(untimed.stream().map(ChildReport.Round::mbPerSec).toList());
    }

    /**
     * {@return why the lab does not trust this row's figure, or null where it does}: its timed median
     * strays more than {@value #TIMED_TOLERANCE} of the untimed pass's (the timing itself, or a warm-up
     * too short for the client, changed what was measured), or its rounds spread wider than their median
     * (max - min over the median above 1: the machine, not the client, made the figure); see
     * {@link SetAside.Reason#timed}
     */
    public SetAside.Reason setAside() {
        return SetAside.Reason.timed(mbPerSec(), untimedMbRounds, TIMED_TOLERANCE, Unit.MB_PER_S);
    }

    /**
     * {@return this row set aside, or null where the lab trusts it}
     *
     * @param experiment the experiment that measured it
     * @param row the row's name
     * @param placement where it ran
     */
    SetAside setAside(String experiment, String row, Placement placement) {
        return SetAside.of(experiment, row, placement, null, setAside());
    }

    /** {@return {@code text}, a table cell of this row's figure, marked where the row is set aside} */
    String marked(String text) {
        return SetAside.marked(text, setAside() != null);
    }

    /**
     * {@return the measured rounds of client runs}
     *
     * @param rounds at least one
     */
    static Throughput of(List<ChildReport.Round> rounds) {
        List<Double> mb = new ArrayList<>();
        List<Double> msg = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        add(rounds, mb, msg, cpu);
        return new Throughput(mb, msg, cpu);
    }

    /** Adds each round's MB/s, frames/s and, where measured, CPU per frame to the lists. */
    static void add(List<ChildReport.Round> rounds, List<Double> mb, List<Double> msg, List<Double> cpu) {
        for (ChildReport.Round round : rounds) {
            mb.add(round.mbPerSec());
            msg.add((double) round.msgPerSec());
            if (round.cpuNsPerMsg() != null) {
                cpu.add(round.cpuNsPerMsg());
            }
        }
    }

    /** {@return megabytes per second: the median of the rounds, with min and max} */
    public Stats mbPerSec() {
        return Stats.of(mbRounds);
    }

    /** {@return frames per second, or null where the case counts no frames} */
    public Stats msgPerSec() {
        return msgRounds.isEmpty() ? null : Stats.of(msgRounds);
    }

    /** {@return the reading thread's CPU nanoseconds per frame, or null where it is not measured} */
    public Stats cpuNsPerMsg() {
        return cpuRounds.isEmpty() ? null : Stats.of(cpuRounds);
    }

    /**
     * {@return the rounds of both, this one's first}
     *
     * @param other more rounds of the same row
     */
    public Throughput plus(Throughput other) {
        return new Throughput(concat(mbRounds, other.mbRounds), concat(msgRounds, other.msgRounds),
                concat(cpuRounds, other.cpuRounds), concat(untimedMbRounds, other.untimedMbRounds));
    }

    private static List<Double> concat(List<Double> a, List<Double> b) {
        List<Double> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
