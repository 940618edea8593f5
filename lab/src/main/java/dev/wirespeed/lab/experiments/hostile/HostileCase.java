package dev.wirespeed.lab.experiments.hostile;

import java.util.Objects;

/**
 * A case of the hostile experiment: one attack against one server, over TLS on one engine where the
 * attack is on TLS.
 *
 * @param server the server attacked
 * @param attack what the hostile connections do
 * @param tls {@link Tls#NONE} for the plaintext attacks, else the engine of the server (and of the
 *     honest load)
 */
public record HostileCase(HostileServer server, Attack attack, Tls tls) {
    /**
     * Checks the fields.
     *
     * @throws NullPointerException if one is null
     * @throws IllegalArgumentException if a TLS attack has no engine or a plaintext one has one
     */
    public HostileCase {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(attack, "attack");
        Objects.requireNonNull(tls, "tls");
        if (attack.tls() != (tls != Tls.NONE)) {
            throw new IllegalArgumentException("attack=" + attack + " tls=" + tls + ": the TLS attacks need an engine, "
                    + "the others none");
        }
    }

    /**
     * A plaintext attack.
     *
     * @param server the server attacked
     * @param attack what the hostile connections do, not on TLS
     */
    public HostileCase(HostileServer server, Attack attack) {
        this(server, attack, Tls.NONE);
    }

    /** {@return the attack as tables name it, with the engine where it is on TLS} */
    String attackLabel() {
        return tls == Tls.NONE ? attack.label() : attack.label() + " (" + tls.label() + ")";
    }
}
