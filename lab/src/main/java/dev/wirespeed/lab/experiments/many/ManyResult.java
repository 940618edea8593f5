package dev.wirespeed.lab.experiments.many;

import dev.wirespeed.lab.result.Stats;

/** What a {@link ManyCase} yields. */
public sealed interface ManyResult {
    /**
     * A load's figures over its measured rounds.
     *
     * @param framesPerSecond frames echoed per second
     * @param p50 the median time from a frame's send to its echo, in microseconds
     * @param p99 its 99th percentile
     * @param p999 its 99.9th percentile
     * @param max the longest
     * @param serverCpuNsPerFrame the server process's CPU time (user and system, all its threads) per frame
     *     over the measured rounds, in nanoseconds: its cost, whoever limits the rate
     * @param serverKernelShare the part of that time the kernel spent for it (system time), 0 to 1:
     *     what a change of the server's own code or of its system calls can and cannot reach
     * @param loadCpuShare the load generator's CPU time over each measured round as a share of its wall
     *     time: near 1, the load and not the server set the rate
     * @param loadCpuNsPerFrame the load generator process's CPU time (user and system, all its threads, as it
     *     reports its share of each round) per frame over the measured rounds, in nanoseconds
     */
    record Load(Stats framesPerSecond, Stats p50, Stats p99, Stats p999, Stats max, Stats serverCpuNsPerFrame,
            Stats serverKernelShare, Stats loadCpuShare, Stats loadCpuNsPerFrame) implements ManyResult {
    }

    /**
     * The server's resident memory before and while idle connections are held.
     *
     * @param beforeKib resident KiB after 100 connections came and went
     * @param heldKib resident KiB with the connections held
     * @param bytesPerConnection the growth per connection held, in bytes
     */
    record Idle(long beforeKib, long heldKib, Stats bytesPerConnection) implements ManyResult {
    }

    /**
     * The fast connections' rate alone and beside a slow reader, and the server's memory meanwhile.
     *
     * @param alone frames per second of the fast connections alone
     * @param besideSlow frames per second of the same connections beside the slow reader
     * @param rssBeforeKib the server's resident KiB before the slow reader came
     * @param rssPeakKib the most resident KiB seen at the end of a round beside the slow reader
     */
    record Slow(Stats alone, Stats besideSlow, long rssBeforeKib, long rssPeakKib) implements ManyResult {
    }

    /**
     * Full TLS handshakes over the measured rounds.
     *
     * @param handshakesPerSecond handshakes completed per second
     * @param p50 the median time from a connect's start to its handshake's end at the client, in microseconds
     * @param p99 its 99th percentile
     * @param serverCpuUsPerHandshake the server process's CPU time (user and system, all its threads) per
     *     handshake over the measured rounds, in microseconds: accepting, the handshake and the close
     * @param serverCpuShare that CPU time over the measured rounds' wall time, a share of one CPU: near 1,
     *     the server set the rate
     * @param loadCpuShare the load's CPU time over each measured round's wall time: near 1, the load set it
     */
    record Handshakes(Stats handshakesPerSecond, Stats p50, Stats p99, Stats serverCpuUsPerHandshake,
            Stats serverCpuShare, Stats loadCpuShare) implements ManyResult {
    }
}
