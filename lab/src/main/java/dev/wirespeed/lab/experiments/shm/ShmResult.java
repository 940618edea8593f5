package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Stats;
import java.util.Map;
import java.util.Objects;

/** What one cell of the {@code shm} experiment measured, peer by peer, each figure over the cell's runs. */
public sealed interface ShmResult {
    /**
     * The round trips of a ping-pong cell.
     *
     * @param byPeer each peer's percentiles: the median, min and max over runs
     */
    record Latencies(Map<Peer, Distribution> byPeer) implements ShmResult {
        /** Copies the map. */
        public Latencies {
            byPeer = Map.copyOf(byPeer);
        }
    }

    /**
     * The frames a second of a stream cell.
     *
     * @param byPeer each peer's rate
     */
    record Rates(Map<Peer, Rate> byPeer) implements ShmResult {
        /** Copies the map. */
        public Rates {
            byPeer = Map.copyOf(byPeer);
        }
    }

    /**
     * The wake-ups of an idle cell.
     *
     * @param byPeer each peer's wake-ups
     */
    record Wakeups(Map<Peer, Wakeup> byPeer) implements ShmResult {
        /** Copies the map. */
        public Wakeups {
            byPeer = Map.copyOf(byPeer);
        }
    }

    /**
     * A stream's rate over the measured rounds of every run.
     *
     * @param msgPerSec frames a second
     * @param cpuNsPerMsg the reading thread's CPU time per frame
     */
    record Rate(Stats msgPerSec, Stats cpuNsPerMsg) {
        /** Checks the fields. */
        public Rate {
            Objects.requireNonNull(msgPerSec, "msgPerSec");
            Objects.requireNonNull(cpuNsPerMsg, "cpuNsPerMsg");
        }
    }

    /**
     * A parked reader's wake-ups: each figure over runs of the median (or longest) of a run's wake-ups.
     *
     * @param p50 microseconds from the writer's send (or the waker's store) to the reader holding it, the median
     * @param max the longest, microseconds
     * @param cpuShare the reader's process CPU time over the idle periods' wall time, in cores
     */
    record Wakeup(Stats p50, Stats max, Stats cpuShare) {
        /** Checks the fields. */
        public Wakeup {
            Objects.requireNonNull(p50, "p50");
            Objects.requireNonNull(max, "max");
            Objects.requireNonNull(cpuShare, "cpuShare");
        }
    }
}
