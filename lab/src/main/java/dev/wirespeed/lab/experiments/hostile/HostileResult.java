package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.lab.result.Stats;
import java.util.Objects;

/**
 * What one {@link HostileCase} yields over its runs, each against a server started for it alone.
 *
 * <p>{@code 0 <= alive <= runs}, {@code 0 <= served <= runs}, {@code runs >= 1}.
 *
 * @param connections hostile connections per run
 * @param rssBeforeKib the server's resident KiB before the attack, per run
 * @param rssWithKib the server's resident KiB with the attack in place, per run
 * @param bytesPerConnection the growth per hostile connection, per run, floored at one page over
 *     {@code connections} (see {@link HostileExperiment#perConnection})
 * @param alone the honest load's frames per second without the attack, per measured round of every run
 * @param underAttack the same load's frames per second with the attack in place, per measured round
 * @param runs runs, each a fresh server
 * @param alive runs after which the server's process was alive
 * @param served runs after which a new connection's round trip was served
 */
public record HostileResult(int connections, Stats rssBeforeKib, Stats rssWithKib, Stats bytesPerConnection,
        Stats alone, Stats underAttack, int runs, int alive, int served) {
    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if {@code connections < 1}, {@code runs < 1}, or {@code alive} or
     *     {@code served} is outside {@code [0, runs]}
     * @throws NullPointerException if a figure is null
     */
    public HostileResult {
        Objects.requireNonNull(rssBeforeKib, "rssBeforeKib");
        Objects.requireNonNull(rssWithKib, "rssWithKib");
        Objects.requireNonNull(bytesPerConnection, "bytesPerConnection");
        Objects.requireNonNull(alone, "alone");
        Objects.requireNonNull(underAttack, "underAttack");
        if (connections < 1 || runs < 1 || alive < 0 || alive > runs || served < 0 || served > runs) {
            throw new IllegalArgumentException("connections=" + connections + " runs=" + runs + " alive=" + alive
                    + " served=" + served + ": need connections >= 1, runs >= 1, 0 <= alive, served <= runs");
        }
    }

    /** {@return the honest load's rate under the attack over its rate alone, the ratio of the medians} */
    public double kept() {
        return underAttack.median() / alone.median();
    }
}
