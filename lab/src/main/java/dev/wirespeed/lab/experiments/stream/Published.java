package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.result.Placement;
import java.util.Map;

/**
 * The articles' published MB/s, set beside ours only for the very case they measured: an article
 * strategy reading the batching server through a socket or the default pipe.
 */
final class Published {
    /**
     * The first article's loopback figures; where it measured only on 10 Gbit Ethernet (readint,
     * buffered, no-alloc), that figure.
     */
    private static final Map<Strategies, Double> TCP = Map.of(
            Strategies.UNBUFFERED, 32.9, Strategies.READINT, 63.7, Strategies.BUFFERED, 398.2,
            Strategies.BUFFERED_READINT, 520.2, Strategies.NO_ALLOC, 507.0, Strategies.CHANNEL, 1529.7,
            Strategies.CHANNEL_COMPACT, 1728.0, Strategies.ZERO_COPY, 2147.1);

    /**
     * The second article's pipe figures by its placements: {different processors, same processor
     * (different cores of one package), same core}. Its double-buffered {@code System.in} (our
     * {@code buffered} on stdin) was measured once, unpinned: 304.6 MB/s.
     */
    private static final Map<Strategies, double[]> PIPE = Map.of(
            Strategies.UNBUFFERED, new double[] {41.5, 50.8, Double.NaN},
            Strategies.READINT, new double[] {78.4, 80.6, Double.NaN},
            Strategies.BUFFERED, new double[] {304.6, 304.6, 304.6},
            Strategies.BUFFERED_READINT, new double[] {539, 680, 515},
            Strategies.NO_ALLOC, new double[] {638, 828, 572},
            Strategies.CHANNEL_COMPACT, new double[] {651, 798, 1531},
            Strategies.ZERO_COPY, new double[] {867, 1013, 1782});

    private Published() {
    }

    /** {@return the article's MB/s for this row and placement, or NaN where it measured no such case} */
    static double mbPerSec(Link link, StreamCase row, Placement placement) {
        if (!(row instanceof StreamCase.Java java) || java.pipeSize() > 0 || java.writer() != StreamCase.Writer.JAVA) {
            return Double.NaN;
        }
        return switch (link) {
            case TCP -> TCP.getOrDefault(java.strategy(), Double.NaN);
            case UNIX -> Double.NaN;
            case PIPE -> {
                double[] byPlacement = PIPE.get(java.strategy());
                int column = switch (placement.kind()) {
                    case DIFFERENT_PACKAGES -> 0;
                    case DIFFERENT_CORES -> 1;
                    case SAME_CORE -> 2;
                    default -> -1;
                };
                yield byPlacement == null || column < 0 ? Double.NaN : byPlacement[column];
            }
        };
    }
}
