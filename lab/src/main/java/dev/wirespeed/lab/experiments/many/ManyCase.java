package dev.wirespeed.lab.experiments.many;

/** A case of the many-connections experiment: a load at some number of connections, or idle ones held. */
public sealed interface ManyCase {
    /** {@return the server measured} */
    ManyServer server();

    /** {@return how many connections} */
    int connections();

    /**
     * Pipelined echoes over {@code connections} connections at once.
     *
     * @param server the server
     * @param connections connections, each with a window of frames in flight
     */
    record Load(ManyServer server, int connections) implements ManyCase {
    }

    /**
     * {@code connections} connections that each made one round trip, held open, for the server's memory.
     *
     * @param server the server, started for this case alone
     * @param connections connections held
     */
    record Idle(ManyServer server, int connections) implements ManyCase {
    }

    /**
     * {@code connections} pipelined connections, alone and then beside one slow reader, a connection
     * that sends frames as fast as the server takes them and never reads an echo.
     *
     * @param server the server
     * @param connections the fast connections
     */
    record Slow(ManyServer server, int connections) implements ManyCase {
    }

    /**
     * A load as {@link Load}, the server in a network namespace across a veth pair ({@link
     * dev.wirespeed.lab.env.VethLink}).
     *
     * @param server the server, started in the namespace
     * @param connections connections, each with a window of frames in flight
     */
    record Across(ManyServer server, int connections) implements ManyCase {
    }
}
