package dev.wirespeed.lab.experiment;

/**
 * One measured cell of a lab table, as written to {@code results.json} and {@code results.csv}.
 *
 * @param experiment the experiment ({@code tcp}, ...)
 * @param kase the case: a strategy or ceiling name
 * @param transport tcp, unix, pipe, file
 * @param placement where server and client ran, e.g. {@code different cores}
 * @param unit {@code MB/s}, {@code msg/s}, ...
 * @param stats median, min and max over the runs
 * @param size body size in bytes
 * @param published the article's figure in the same unit, or NaN where it has none
 * @param ours true for the library's own rows
 * @param ceiling true for native ceilings
 * @param peer true for peers (Netty)
 * @param percentile for latency rows, which percentile ({@code p50}, {@code p90}, {@code p99},
 *     {@code p999}, {@code max}); null for the others
 */
public record Row(String experiment, String kase, String transport, String placement, String unit, Stats stats,
        int size, double published, boolean ours, boolean ceiling, boolean peer, String percentile) {
    /**
     * A row that is not a percentile.
     *
     * @param experiment the experiment
     * @param kase the case
     * @param transport the transport
     * @param placement the placement
     * @param unit the unit
     * @param stats median, min and max over the runs
     * @param size body size in bytes
     * @param published the article's figure, or NaN
     * @param ours true for the library's own rows
     * @param ceiling true for native ceilings
     * @param peer true for peers
     */
    public Row(String experiment, String kase, String transport, String placement, String unit, Stats stats,
            int size, double published, boolean ours, boolean ceiling, boolean peer) {
        this(experiment, kase, transport, placement, unit, stats, size, published, ours, ceiling, peer, null);
    }
}
