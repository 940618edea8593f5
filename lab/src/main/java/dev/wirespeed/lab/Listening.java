package dev.wirespeed.lab;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The line every server of the lab, Java and C, prints first on standard error once it accepts
 * connections, {@code listening on ADDRESS}: the commands write it, the lab waits for it.
 */
public final class Listening {
    /** What the line starts with; the address follows. */
    public static final String PREFIX = "listening on ";

    private Listening() {
    }

    /**
     * {@return the line for {@code address}}, without its line break
     *
     * @param address a bound address
     */
    public static String line(SocketAddress address) {
        return PREFIX + describe(address);
    }

    /**
     * {@return {@code address} as the line prints it}: {@code host:port} for TCP, the path for a Unix socket
     *
     * @param address a bound address
     */
    public static String describe(SocketAddress address) {
        return address instanceof InetSocketAddress inet
                ? inet.getAddress().getHostAddress() + ":" + inet.getPort()
                : String.valueOf(address);
    }
}
