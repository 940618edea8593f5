package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.Stats;
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
 */
public record Throughput(List<Double> mbRounds, List<Double> msgRounds, List<Double> cpuRounds) {
    /**
     * Copies the rounds.
     *
     * @throws IllegalArgumentException if there is no MB/s round
     */
    public Throughput {
        mbRounds = List.copyOf(mbRounds);
        msgRounds = List.copyOf(msgRounds);
        cpuRounds = List.copyOf(cpuRounds);
        if (mbRounds.isEmpty()) {
            throw new IllegalArgumentException("a throughput needs at least one MB/s round");
        }
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
                concat(cpuRounds, other.cpuRounds));
    }

    private static List<Double> concat(List<Double> a, List<Double> b) {
        List<Double> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
