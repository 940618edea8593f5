package dev.wirespeed.lab.experiments.tails;

import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.result.Placement;

/**
 * A case of the tails experiment: one run of one row. Runs are cases of their own so that the lab can
 * take every row's first run, then every row's second, and a drift of the machine during the run falls
 * on all rows alike instead of on the rows measured last.
 *
 * @param row the placement, path and JVM options
 * @param run which run, from 1
 */
public record TailCell(Row row, int run) {
    /**
     * What a row of the tails tables holds fixed.
     *
     * @param placement where echo (the server side) and ping run
     * @param path how both talk to their sockets
     * @param variant the JVM options of both
     */
    public record Row(Placement placement, Impl path, TailVariant variant) {
        /** {@return the row's name: path and options} */
        public String name() {
            return path.cliName() + ", " + variant.label();
        }
    }
}
