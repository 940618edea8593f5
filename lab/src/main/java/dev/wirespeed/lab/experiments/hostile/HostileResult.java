package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.lab.result.Stats;
import java.util.Objects;

/**
 * What one {@link HostileCase} yields over its runs, each against a server started for it alone.
 *
 * <p>{@code 0 <= alive <= runs}, {@code 0 <= served <= runs}, {@code runs >= 1}, {@code first >= 1},
 * {@code connections >= 1}; per run, {@code 0 <= heldBefore <= first} and {@code 0 <= heldWith <= first +
 * connections}.
 *
 * @param first hostile connections of the first attack, in place at both readings of memory
 * @param connections hostile connections opened after the first reading, per run
 * @param heldBefore hostile connections the server held at the first reading, per run
 * @param heldWith hostile connections the server held at the second reading, of both attacks, per run
 * @param rssBeforeKib the server's resident KiB at the first reading, per run
 * @param rssWithKib the server's resident KiB at the second reading, per run
 * @param bytesPerHeld the growth per hostile connection the server held more at the second reading than
 *     at the first, per run (see {@link HostileExperiment#perHeld})
 * @param alone the honest load's frames per second without the attack, per measured round of every run
 * @param underAttack the same load's frames per second with the attack in place, per measured round
 * @param runs runs, each a fresh server
 * @param alive runs after which the server's process was alive
 * @param served runs after which a new connection's round trip was served
 */
public record HostileResult(int first, int connections, Stats heldBefore, Stats heldWith, Stats rssBeforeKib,
        Stats rssWithKib, Stats bytesPerHeld, Stats alone, Stats underAttack, int runs, int alive, int served) {
    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if {@code first < 1}, {@code connections < 1}, {@code runs < 1}, or
     *     {@code alive} or {@code served} is outside {@code [0, runs]}
     * @throws NullPointerException if a figure is null
     */
    public HostileResult {
        Objects.requireNonNull(heldBefore, "heldBefore");
        Objects.requireNonNull(heldWith, "heldWith");
        Objects.requireNonNull(rssBeforeKib, "rssBeforeKib");
        Objects.requireNonNull(rssWithKib, "rssWithKib");
        Objects.requireNonNull(bytesPerHeld, "bytesPerHeld");
        Objects.requireNonNull(alone, "alone");
        Objects.requireNonNull(underAttack, "underAttack");
        if (first < 1 || connections < 1 || runs < 1 || alive < 0 || alive > runs || served < 0 || served > runs) {
            throw new IllegalArgumentException("first=" + first + " connections=" + connections + " runs=" + runs
                    + " alive=" + alive + " served=" + served + ": need first, connections, runs >= 1, 0 <= alive, "
                    + "served <= runs");
        }
    }

    /** {@return the honest load's rate under the attack over its rate alone, the ratio of the medians} */
    public double kept() {
        return underAttack.median() / alone.median();
    }
}
