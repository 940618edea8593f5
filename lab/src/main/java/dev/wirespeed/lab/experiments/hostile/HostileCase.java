package dev.wirespeed.lab.experiments.hostile;

import java.util.Objects;

/**
 * A case of the hostile experiment: one attack against one server.
 *
 * @param server the server attacked
 * @param attack what the hostile connections do
 */
public record HostileCase(HostileServer server, Attack attack) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if one is null
     */
    public HostileCase {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(attack, "attack");
    }
}
