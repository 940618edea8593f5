package dev.wirespeed.lab.experiments.hostile;

import dev.wirespeed.frame.FrameFormat;
import java.util.Locale;

/**
 * An attack of the hostile experiment: what each hostile connection does, as {@link Attacker} does it.
 * Every attack is bounded: in connections (the experiment's count), in time (the attacker stops when
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
    NO_READ("never reads", "frames sent as fast as taken, echoes never read");

    private final String label;
    private final String what;

    Attack(String label, String what) {
        this.label = label;
        this.what = what;
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
