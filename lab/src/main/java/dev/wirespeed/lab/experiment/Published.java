package dev.wirespeed.lab.experiment;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.experiment.StreamExperiment.Case;
import dev.wirespeed.lab.experiment.StreamExperiment.JavaCase;
import dev.wirespeed.lab.experiment.StreamExperiment.Link;
import java.util.Map;

/** The articles' published figures for each case, set beside ours. */
final class Published {
    /**
     * The first article's loopback figures; where it measured only on 10 Gbit Ethernet (readint,
     * buffered, no-alloc), that figure.
     */
    static final Map<Strategies, Double> TCP = Map.of(
            Strategies.UNBUFFERED, 32.9, Strategies.READINT, 63.7, Strategies.BUFFERED, 398.2,
            Strategies.BUFFERED_READINT, 520.2, Strategies.NO_ALLOC, 507.0, Strategies.CHANNEL, 1529.7,
            Strategies.CHANNEL_COMPACT, 1728.0, Strategies.ZERO_COPY, 2147.1);

    /**
     * The second article's pipe figures by its placements: {different processors, same processor
     * (different cores of one package), same core}. Its double-buffered {@code System.in} (our
     * {@code buffered} on stdin) was measured once, unpinned: 304.6 MB/s.
     */
    static final Map<Strategies, double[]> PIPE = Map.of(
            Strategies.UNBUFFERED, new double[] {41.5, 50.8, Double.NaN},
            Strategies.READINT, new double[] {78.4, 80.6, Double.NaN},
            Strategies.BUFFERED, new double[] {304.6, 304.6, 304.6},
            Strategies.BUFFERED_READINT, new double[] {539, 680, 515},
            Strategies.NO_ALLOC, new double[] {638, 828, 572},
            Strategies.CHANNEL_COMPACT, new double[] {651, 798, 1531},
            Strategies.ZERO_COPY, new double[] {867, 1013, 1782});

    private Published() {
    }

    /** {@return the article's MB/s for this case and placement, or NaN where it has none} */
    static double mbPerSec(Link link, Case kase, Placement placement) {
        if (!(kase instanceof JavaCase java) || java.pipeSize() > 0) {
            return Double.NaN;
        }
        return switch (link) {
            case TCP -> TCP.getOrDefault(java.strategy(), Double.NaN);
            case UNIX -> Double.NaN;
            case PIPE -> {
                double[] byPlacement = PIPE.get(java.strategy());
                int column = switch (placement.name()) {
                    case Placement.DIFFERENT_PACKAGES -> 0;
                    case Placement.DIFFERENT_CORES -> 1;
                    case Placement.SAME_CORE -> 2;
                    default -> -1;
                };
                yield byPlacement == null || column < 0 ? Double.NaN : byPlacement[column];
            }
        };
    }

    /**
     * {@return the fast-sockets article's latency in microseconds for a latency case and percentile, or
     * NaN where it has none}: its Chronicle network layer busy-polled non-blocking channels, p50 6.8 and p90
     * 8.2 us through {@code SocketChannel.read}, 5.7 and 7.1 us through the JDK's native read reached
     * by reflection, on an i7-6700K (TCP replication benchmark, JLBH)
     */
    static double latencyUs(String kase, String percentile) {
        return switch (kase + " " + percentile) {
            case "jdk-spin p50" -> 6.8;
            case "jdk-spin p90" -> 8.2;
            case "native-spin p50" -> 5.7;
            case "native-spin p90" -> 7.1;
            default -> Double.NaN;
        };
    }
}
