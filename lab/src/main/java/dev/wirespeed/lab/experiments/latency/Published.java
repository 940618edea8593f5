package dev.wirespeed.lab.experiments.latency;

import dev.wirespeed.lab.result.Percentile;

/**
 * The fast-sockets article's latency: its Chronicle network layer busy-polled non-blocking channels,
 * p50 6.8 and p90 8.2 us through {@code SocketChannel.read}, 5.7 and 7.1 us through the JDK's native
 * read reached by reflection, on an i7-6700K (TCP replication benchmark, JLBH).
 */
final class Published {
    private Published() {
    }

    /** {@return the article's microseconds for a row and percentile, or NaN where it measured no such case} */
    static double latencyUs(LatencyCase row, Percentile percentile) {
        if (!(row instanceof LatencyCase.Java java)) {
            return Double.NaN;
        }
        return switch (java.impl()) {
            case JDK_SPIN -> percentile == Percentile.P50 ? 6.8 : percentile == Percentile.P90 ? 8.2 : Double.NaN;
            case NATIVE_SPIN -> percentile == Percentile.P50 ? 5.7 : percentile == Percentile.P90 ? 7.1 : Double.NaN;
            case JDK, NATIVE, URING, URING_SPIN, NETTY, NETTY_URING -> Double.NaN;
        };
    }
}
