package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.Objects;

/**
 * What a child process of the lab reports on standard output, one JSON object per line: the client's
 * rounds and summary ({@code wirespeed client --json}, and the C reader in the same shape) and
 * ping's percentiles ({@code wirespeed ping --json}, and the C ping-pong), the rounds of the C load
 * generator of many connections ({@code many load}), the rounds of the TLS handshake load
 * ({@code wirespeed handshakes}), and the wake-ups of a reader that slept through idle periods
 * ({@code wirespeed ring-read --wakes}, the C ring's {@code shmring read-wakes} and the C futex probe).
 * {@link ChildReports} writes and reads every line, so both sides share one schema; the kind of a line
 * is told by its fields.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.DEDUCTION)
@JsonSubTypes({@JsonSubTypes.Type(ChildReport.Round.class), @JsonSubTypes.Type(ChildReport.Summary.class),
    @JsonSubTypes.Type(ChildReport.Latency.class), @JsonSubTypes.Type(ChildReport.Load.class),
    @JsonSubTypes.Type(ChildReport.Handshakes.class), @JsonSubTypes.Type(ChildReport.Wakes.class)})
public sealed interface ChildReport {
    /**
     * One round of {@code messages} frames read by a client.
     *
     * @param round the round's number, from 1 (the first is the warm-up where the lab measures)
     * @param messages frames in the round, {@code >= 1}
     * @param bytes bytes in the round, 8 header bytes counted per frame
     * @param ms the round's wall time in milliseconds
     * @param msgPerSec frames per second
     * @param mbPerSec megabytes (10^6 bytes) per second
     * @param cpuNsPerMsg the reading thread's CPU time per frame in nanoseconds, or null where the round
     *     was closed on another thread and has none
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Round(long round, long messages, long bytes, long ms, long msgPerSec, double mbPerSec, Double cpuNsPerMsg)
            implements ChildReport {
        /**
         * Checks the counts.
         *
         * @throws IllegalArgumentException if {@code round < 1}, {@code messages < 1} or a figure is negative
         */
        public Round {
            if (round < 1 || messages < 1 || bytes < 0 || ms < 0 || msgPerSec < 0 || !(mbPerSec >= 0)
                    || (cpuNsPerMsg != null && !(cpuNsPerMsg >= 0))) {
                throw new IllegalArgumentException("round=" + round + " messages=" + messages + " bytes=" + bytes
                        + " ms=" + ms + " msgPerSec=" + msgPerSec + " mbPerSec=" + mbPerSec + " cpuNsPerMsg="
                        + cpuNsPerMsg);
            }
        }
    }

    /**
     * The client's last line.
     *
     * @param summary always true: marks the line
     * @param frames complete frames read
     * @param bytes bytes read, headers included
     * @param verified whether every frame was checked against the sequence stream and the read ended cleanly
     */
    record Summary(boolean summary, long frames, long bytes, boolean verified) implements ChildReport {
        /**
         * Checks the fields.
         *
         * @throws IllegalArgumentException if {@code summary} is false or a count is negative
         */
        public Summary {
            if (!summary || frames < 0 || bytes < 0) {
                throw new IllegalArgumentException("summary=" + summary + " frames=" + frames + " bytes=" + bytes);
            }
        }

        /**
         * A summary line.
         *
         * @param frames complete frames read
         * @param bytes bytes read
         * @param verified whether every frame was verified
         */
        public Summary(long frames, long bytes, boolean verified) {
            this(true, frames, bytes, verified);
        }
    }

    /**
     * Round-trip percentiles of one {@code ping} run.
     *
     * @param p50 the median
     * @param p90 the 90th percentile
     * @param p99 the 99th percentile
     * @param p999 the 99.9th percentile
     * @param p9999 the 99.99th percentile
     * @param max the largest round trip
     * @param unit always microseconds
     */
    record Latency(double p50, double p90, double p99, double p999, double p9999, double max, Unit unit)
            implements ChildReport {
        /**
         * Checks the order of the percentiles.
         *
         * @throws IllegalArgumentException unless {@code 0 <= p50 <= p90 <= p99 <= p999 <= p9999 <= max} in
         *     microseconds
         */
        public Latency {
            Objects.requireNonNull(unit, "unit");
            if (unit != Unit.MICROSECONDS || !(0 <= p50 && p50 <= p90 && p90 <= p99 && p99 <= p999 && p999 <= p9999
                    && p9999 <= max)) {
                throw new IllegalArgumentException("percentiles out of order or not in us: p50=" + p50 + " p90=" + p90
                        + " p99=" + p99 + " p999=" + p999 + " p9999=" + p9999 + " max=" + max + " unit=" + unit);
            }
        }

        /**
         * {@return the figure of one percentile}
         *
         * @param percentile which
         */
        public double get(Percentile percentile) {
            return switch (percentile) {
                case P50 -> p50;
                case P90 -> p90;
                case P99 -> p99;
                case P999 -> p999;
                case P9999 -> p9999;
                case MAX -> max;
            };
        }
    }

    /**
     * One round of the C load generator: every connection sent its frames and got each echo back,
     * checked byte for byte.
     *
     * @param round the round's number, from 1 (the first is the warm-up where the lab measures)
     * @param connections connections measured in the round, {@code >= 1}
     * @param slow slow readers beside them, which send and never read, {@code >= 0}
     * @param frames frames echoed in the round, {@code >= 1}
     * @param seconds the round's wall time
     * @param framesPerSecond frames echoed per second
     * @param cpuShare the generator's CPU time over the round's wall time: near 1, it set the rate
     * @param p50 the median time from a frame's send to its echo's last byte
     * @param p99 the 99th percentile of that time
     * @param p999 the 99.9th percentile
     * @param max the longest
     * @param unit always microseconds
     */
    record Load(long round, long connections, long slow, long frames, double seconds, double framesPerSecond,
            double cpuShare, double p50, double p99, double p999, double max, Unit unit) implements ChildReport {
        /**
         * Checks the counts and the order of the percentiles.
         *
         * @throws IllegalArgumentException if a count is below 1, a figure negative, or the percentiles out
         *     of order or not in microseconds
         */
        public Load {
            Objects.requireNonNull(unit, "unit");
            if (round < 1 || connections < 1 || slow < 0 || frames < 1 || !(seconds > 0) || !(framesPerSecond > 0)
                    || !(cpuShare >= 0) || unit != Unit.MICROSECONDS
                    || !(0 <= p50 && p50 <= p99 && p99 <= p999 && p999 <= max)) {
                throw new IllegalArgumentException("round=" + round + " connections=" + connections + " slow=" + slow
                        + " frames=" + frames + " seconds=" + seconds + " framesPerSecond=" + framesPerSecond
                        + " cpuShare=" + cpuShare + " p50=" + p50 + " p99=" + p99 + " p999=" + p999 + " max=" + max
                        + " unit=" + unit);
            }
        }
    }

    /**
     * One round of the TLS handshake load: full handshakes completed in a round of fixed time, each a
     * new connection that connected, finished its handshake and closed cleanly.
     *
     * @param round the round's number, from 1 (the first is the warm-up where the lab measures)
     * @param connections connections kept in flight, {@code >= 1}
     * @param handshakes handshakes completed in the round, {@code >= 1}
     * @param seconds the round's wall time
     * @param handshakesPerSecond handshakes completed per second
     * @param cpuShare the load's CPU time over the round's wall time: near 1, it set the rate
     * @param p50 the median time from a connect's start to its handshake's end
     * @param p99 the 99th percentile of that time
     * @param max the longest
     * @param unit always microseconds
     */
    record Handshakes(long round, long connections, long handshakes, double seconds, double handshakesPerSecond,
            double cpuShare, double p50, double p99, double max, Unit unit) implements ChildReport {
        /**
         * Checks the counts and the order of the percentiles.
         *
         * @throws IllegalArgumentException if a count is below 1, a figure negative, or the percentiles out
         *     of order or not in microseconds
         */
        public Handshakes {
            Objects.requireNonNull(unit, "unit");
            if (round < 1 || connections < 1 || handshakes < 1 || !(seconds > 0) || !(handshakesPerSecond > 0)
                    || !(cpuShare >= 0) || unit != Unit.MICROSECONDS || !(0 <= p50 && p50 <= p99 && p99 <= max)) {
                throw new IllegalArgumentException("round=" + round + " connections=" + connections + " handshakes="
                        + handshakes + " seconds=" + seconds + " handshakesPerSecond=" + handshakesPerSecond
                        + " cpuShare=" + cpuShare + " p50=" + p50 + " p99=" + p99 + " max=" + max + " unit=" + unit);
            }
        }
    }

    /**
     * A sleeping reader's wake-ups: each the time from the writer's commit of the first frame after an
     * idle period (or, for the C futex probe, from the waker's store to the word) to the reader holding
     * it; and what the reader's process cost while nothing came.
     *
     * @param wakes wake-ups measured, {@code >= 1}
     * @param idleMs the idle period before each, in milliseconds
     * @param cpuShare the reader's process CPU time (user and system, every thread) over the idle
     *     periods' wall time: 0.01 is 1% of a core
     * @param p50 the median wake-up
     * @param max the longest
     * @param unit always microseconds
     */
    record Wakes(long wakes, long idleMs, double cpuShare, double p50, double max, Unit unit) implements ChildReport {
        /**
         * Checks the counts and the order of the figures.
         *
         * @throws IllegalArgumentException if {@code wakes < 1}, {@code idleMs < 0}, a figure is negative,
         *     {@code p50 > max}, or the unit is not microseconds
         */
        public Wakes {
            Objects.requireNonNull(unit, "unit");
            if (wakes < 1 || idleMs < 0 || !(cpuShare >= 0) || unit != Unit.MICROSECONDS || !(0 <= p50 && p50 <= max)) {
                throw new IllegalArgumentException("wakes=" + wakes + " idleMs=" + idleMs + " cpuShare=" + cpuShare
                        + " p50=" + p50 + " max=" + max + " unit=" + unit);
            }
        }
    }
}
