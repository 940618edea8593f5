package dev.wirespeed.lab.experiments.idle;

import dev.wirespeed.lab.result.Placement;

/**
 * A case of the idle experiment: one row at one placement.
 *
 * @param placement where the server side (stream server, echo) and the client side (client, ping) run
 * @param row how the library waits for bytes
 */
public record IdleCell(Placement placement, IdleRow row) {
}
