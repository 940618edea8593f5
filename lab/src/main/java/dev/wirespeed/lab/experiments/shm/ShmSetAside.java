package dev.wirespeed.lab.experiments.shm;

import dev.wirespeed.lab.experiment.Results;
import dev.wirespeed.lab.experiments.latency.Distribution;
import dev.wirespeed.lab.result.Percentile;
import dev.wirespeed.lab.result.SetAside;
import dev.wirespeed.lab.result.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which figures of the {@code shm} experiment the lab sets aside: of the kinds its targets compare, every
 * peer's whose runs spread wider than their median ({@link SetAside.Reason#spread}), as the latency
 * experiment's. The kinds are the round trips' p50 and p99.99 (this one where the runs decide it), the
 * streams' frames a second and the parked readers' wake-up p50. Not the CPU while idle: a share of a core
 * near nothing spreads by the CPU clock's ticks, and its target is a fixed bound, not a peer measured
 * beside it.
 */
final class ShmSetAside {
    private ShmSetAside() {
    }

    /**
     * {@return {@code peer}'s round trip at {@code p} in {@code cell} set aside, or null where the lab trusts it}
     *
     * @param experiment the experiment's name
     */
    static SetAside latency(String experiment, ShmCell cell, Peer peer, Distribution d, Percentile p) {
        return SetAside.of(experiment, cell.row(peer), cell.placement(), p, d.setAside(p));
    }

    /** {@return {@code peer}'s frames a second in {@code cell} set aside, or null where the lab trusts it} */
    static SetAside rate(String experiment, ShmCell cell, Peer peer, ShmResult.Rate rate) {
        return SetAside.of(experiment, cell.row(peer), cell.placement(), null,
                SetAside.Reason.spread(rate.msgPerSec(), Unit.MSG_PER_S));
    }

    /** {@return {@code peer}'s wake-up p50 in {@code cell} set aside, or null where the lab trusts it} */
    static SetAside wake(String experiment, ShmCell cell, Peer peer, ShmResult.Wakeup wakeup) {
        return SetAside.of(experiment, cell.row(peer), cell.placement(), Percentile.P50,
                SetAside.Reason.spread(wakeup.p50(), Unit.MICROSECONDS));
    }

    /**
     * {@return every figure of {@code results} of the kinds the targets compare that the lab sets aside},
     * in table order
     *
     * @param experiment the experiment's name
     * @param results every cell's result
     * @param count round trips measured per run: p99.99 only where they decide it
     */
    static List<SetAside> all(String experiment, Results<ShmCell, ShmResult> results, long count) {
        List<SetAside> rows = new ArrayList<>();
        for (ShmCell cell : results.cases()) {
            for (Peer peer : Peer.values()) {
                switch (results.get(cell)) {
                    case ShmResult.Latencies l when l.byPeer().containsKey(peer) -> {
                        for (Percentile p : List.of(Percentile.P50, Percentile.P9999)) {
                            if (p.decidedBy(count)) {
                                rows.add(latency(experiment, cell, peer, l.byPeer().get(peer), p));
                            }
                        }
                    }
                    case ShmResult.Rates r when r.byPeer().containsKey(peer) ->
                            rows.add(rate(experiment, cell, peer, r.byPeer().get(peer)));
                    case ShmResult.Wakeups w when w.byPeer().containsKey(peer) ->
                            rows.add(wake(experiment, cell, peer, w.byPeer().get(peer)));
                    default -> {
                        // the peer is not in this part, or did not run (no C program)
                    }
                }
            }
        }
        rows.removeIf(Objects::isNull);
        return rows;
    }
}
