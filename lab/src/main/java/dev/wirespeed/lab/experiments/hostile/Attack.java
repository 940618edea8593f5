package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.frame.FrameFormat;
import java.util.Locale;

/**
 * An attack of the hostile experiment: what each hostile connection does, as {@link Attacker} does it.
 * The first four are on plaintext servers, the last two on TLS. Every attack is bounded: in connections (the experiment's count), in time (the attacker stops when
 * the case ends) and, where it sends without end, in bytes.
 */
public enum Attack {
    /**
     * Each connection sends one frame header announcing the server's largest body ({@value
     * FrameFormat#DEFAULT_MAX_FRAME_LENGTH} bytes), then {@value Attacker#ANNOUNCED_BODY} bytes of it,
     * then nothing: {@value Attacker#ANNOUNCED_BYTES} bytes a connection in all.
     */
    ANNOUNCED("announced length", "a header announcing 16 MiB, then 16 bytes of body, then nothing"),
    /**
     * Each connection sends a frame of {@value Attacker#DRIP_BODY} body bytes one byte at a time, one
     * every {@value Attacker#DRIP_INTERVAL_MILLIS} ms, and never its last byte.
     */
    DRIP("drip", "a frame one byte a second, never finished"),
    /** Each connection connects and sends nothing. */
    FLOOD("connection flood", "connected, no bytes"),
    /**
     * Each connection sends whole frames as fast as the server takes them, at most {@value
     * Attacker#NO_READ_LIMIT} bytes, and never reads an echo.
     */
    NO_READ("never reads", "frames sent as fast as taken, echoes never read"),
    /**
     * Over TLS: each connection completes a TLS handshake, then sends a record header announcing the
     * largest record TLS allows ({@value Attacker#TLS_RECORD_LENGTH} bytes) and {@value
     * Attacker#ANNOUNCED_BODY} bytes of it, then nothing.
     */
    TLS_RECORD("partial TLS record", "a handshake, then a record header announcing 16,640 bytes and 16 of them"),
    /** Over TLS: each connection sends a ClientHello, then nothing: the handshake is never finished. */
    TLS_HANDSHAKE("unfinished handshake", "a ClientHello, then nothing");

    private final String label;
    private final String what;

    Attack(String label, String what) {
        this.label = label;
        this.what = what;
    }

    /** {@return whether the attack is on a server that speaks TLS} */
    public boolean tls() {
        return this == TLS_RECORD || this == TLS_HANDSHAKE;
    }

    /** {@return the attack's name in tables and results} */
    public String label() {
        return label;
    }

    /** {@return what each hostile connection does, in a few words} */
    public String what() {
        return what;
    }

    /** {@return the lower-case name, as a JVM's kind or a test names it} */
    String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
