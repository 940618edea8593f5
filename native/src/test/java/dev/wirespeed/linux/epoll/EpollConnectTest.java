package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.internal.net.ConnectContract;
import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** Outbound connections on the {@code epoll} transport, at the level of its poller and sockets. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollConnectTest extends ConnectContract {
    @BeforeEach
    void needsEpoll() {
        NativeFeatures.assumeEpoll();
    }

    @Override
    protected LoopTransport transport() {
        return EpollTransport.create();
    }
}
