package dev.wirespeed.linux.internal.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code struct sockaddr_in}, {@code sockaddr_in6} and {@code sockaddr_un} of Linux, to and from Java's
 * socket addresses. Families and the {@code sa_family} field are in host order, ports and IP addresses
 * in network order.
 */
public final class SocketAddresses {
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;
    /** {@code sizeof(struct sockaddr_storage)}: room for any address the kernel returns. */
    public static final int STORAGE_SIZE = 128;
    /** {@code sizeof(sun_path)}: a Unix socket path takes at most 107 bytes and a terminating zero. */
    public static final int UNIX_PATH_SIZE = 108;

    private static final ValueLayout.OfShort FAMILY = ValueLayout.JAVA_SHORT; // host order
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {
    }

    /**
     * {@return {@code address} with its host name looked up, where it is an unresolved {@code
     * InetSocketAddress}; else {@code address} itself}: the one place a name is resolved. {@link #family}
     * and {@link #encode} take the result, so that a socket's family and its sockaddr come from one
     * answer.
     *
     * @throws UnknownHostException if the name cannot be resolved, naming it
     */
    public static SocketAddress resolved(SocketAddress address) throws UnknownHostException {
        if (address instanceof InetSocketAddress inet && inet.isUnresolved()) {
            // throws, naming the host, if it cannot be resolved
            return new InetSocketAddress(InetAddress.getByName(inet.getHostString()), inet.getPort());
        }
        return address;
    }

    /**
     * {@return the address family of {@code address}}: {@code AF_INET}, {@code AF_INET6} or {@code AF_UNIX}
     *
     * @throws IllegalArgumentException for an unresolved {@code InetSocketAddress} (see {@link #resolved}),
     *     or another type of address
     */
    public static int family(SocketAddress address) {
        return switch (address) {
            case InetSocketAddress inet -> ip(inet) instanceof Inet6Address ? AF_INET6 : AF_INET;
            case UnixDomainSocketAddress unix -> AF_UNIX;
            default -> throw new IllegalArgumentException("unsupported address type: " + address.getClass().getName()
                    + " (use InetSocketAddress or UnixDomainSocketAddress)");
        };
    }

    /**
     * {@return {@code address} as a {@code struct sockaddr} in {@code arena}}, its size being the length to pass
     *
     * @throws IllegalArgumentException as {@link #family} does
     */
    public static MemorySegment encode(SocketAddress address, Arena arena) {
        return switch (address) {
            case InetSocketAddress inet -> encodeInet(ip(inet), inet.getPort(), arena);
            case UnixDomainSocketAddress unix -> encodeUnix(unix, arena);
            default -> throw new IllegalArgumentException("unsupported address type: " + address.getClass().getName()
                    + " (use InetSocketAddress or UnixDomainSocketAddress)");
        };
    }

    /** {@return the address in the first {@code length} bytes of {@code storage}}, as the kernel wrote it */
    public static SocketAddress decode(MemorySegment storage, int length) throws IOException {
        int family = storage.get(FAMILY, 0);
        switch (family) {
            case AF_INET -> {
                byte[] ip = new byte[4]; // copied without a slice's segment: an accept allocates only what it keeps
                MemorySegment.copy(storage, ValueLayout.JAVA_BYTE, 4, ip, 0, ip.length);
                return new InetSocketAddress(InetAddress.getByAddress(ip), Short.toUnsignedInt(storage.get(PORT, 2)));
            }
            case AF_INET6 -> {
                byte[] ip = new byte[16];
                MemorySegment.copy(storage, ValueLayout.JAVA_BYTE, 8, ip, 0, ip.length);
                return new InetSocketAddress(InetAddress.getByAddress(ip), Short.toUnsignedInt(storage.get(PORT, 2)));
            }
            case AF_UNIX -> {
                byte[] path = storage.asSlice(2, Math.max(0, length - 2)).toArray(ValueLayout.JAVA_BYTE);
                int end = 0;
                while (end < path.length && path[end] != 0) {
                    end++;
                }
                return UnixDomainSocketAddress.of(new String(path, 0, end, StandardCharsets.UTF_8));
            }
            default -> throw new IOException("unknown address family " + family + " (length=" + length + ")");
        }
    }

    private static InetAddress ip(InetSocketAddress inet) {
        if (inet.isUnresolved()) {
            throw new IllegalArgumentException("address=" + inet + " is unresolved: resolve it first");
        }
        return inet.getAddress();
    }

    private static MemorySegment encodeInet(InetAddress ip, int port, Arena arena) {
        if (ip instanceof Inet4Address) {
            MemorySegment sockaddr = arena.allocate(16); // sockaddr_in: family, port, address, 8 bytes of zero
            sockaddr.set(FAMILY, 0, (short) AF_INET);
            sockaddr.set(PORT, 2, (short) port);
            MemorySegment.copy(MemorySegment.ofArray(ip.getAddress()), 0, sockaddr, 4, 4);
            return sockaddr;
        }
        Inet6Address ip6 = (Inet6Address) ip;
        MemorySegment sockaddr = arena.allocate(28); // sockaddr_in6: family, port, flow info, address, scope id
        sockaddr.set(FAMILY, 0, (short) AF_INET6);
        sockaddr.set(PORT, 2, (short) port);
        MemorySegment.copy(MemorySegment.ofArray(ip6.getAddress()), 0, sockaddr, 8, 16);
        sockaddr.set(ValueLayout.JAVA_INT_UNALIGNED, 24, ip6.getScopeId());
        return sockaddr;
    }

    private static MemorySegment encodeUnix(UnixDomainSocketAddress unix, Arena arena) {
        byte[] path = unix.getPath().toString().getBytes(StandardCharsets.UTF_8);
        if (path.length == 0 || path.length >= UNIX_PATH_SIZE) {
            throw new IllegalArgumentException("Unix socket path of " + path.length + " bytes: must be 1 to "
                    + (UNIX_PATH_SIZE - 1) + " bytes: " + unix.getPath());
        }
        MemorySegment sockaddr = arena.allocate(2 + path.length + 1); // family, path, terminating zero
        sockaddr.set(FAMILY, 0, (short) AF_UNIX);
        MemorySegment.copy(MemorySegment.ofArray(Arrays.copyOf(path, path.length + 1)), 0, sockaddr, 2, path.length + 1);
        return sockaddr;
    }

    /** {@return {@code address} for messages}: {@code 127.0.0.1:40000}, {@code [::1]:40000}, or a Unix socket's path */
    public static String describe(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && !inet.isUnresolved()) {
            String host = inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
