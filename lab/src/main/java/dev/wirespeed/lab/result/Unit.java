package dev.wirespeed.lab.result;

import com.fasterxml.jackson.annotation.JsonValue;

/** The unit of a measured figure, written in results and tables by its {@link #symbol()}. */
public enum Unit {
    /** Megabytes (10^6 bytes, frame headers counted) per second. */
    MB_PER_S("MB/s"),
    /** Frames per second. */
    MSG_PER_S("msg/s"),
    /** CPU time (user and system) per frame, in nanoseconds: of the reading thread, or of a whole server process where the experiment says so. */
    CPU_NS_PER_MSG("cpu ns/msg"),
    /** Microseconds, for round-trip latency. */
    MICROSECONDS("us"),
    /** Bytes: memory allocated per call, or resident memory per connection. */
    BYTES("bytes"),
    /** Calls per second. */
    CALLS_PER_S("ops/s"),
    /** Full TLS handshakes completed per second. */
    HANDSHAKES_PER_S("handshakes/s"),
    /** A server process's CPU time (user and system) per full TLS handshake, in microseconds. */
    CPU_US_PER_HANDSHAKE("cpu us/handshake"),
    /** A process's CPU time (user and system, every thread) over a span of wall time, in percent of one core. */
    CORE_PERCENT("% of a core"),
    /** A count of connections: those a server holds, say. */
    CONNECTIONS("connections"),
    /** A ratio of two figures of one unit. */
    RATIO("x");

    private final String symbol;

    Unit(String symbol) {
        this.symbol = symbol;
    }

    /** {@return how results and tables write the unit, e.g. {@code MB/s}} */
    @JsonValue
    public String symbol() {
        return symbol;
    }

    @Override
    public String toString() {
        return symbol;
    }
}
