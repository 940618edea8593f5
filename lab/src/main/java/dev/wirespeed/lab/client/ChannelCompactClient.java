package dev.wirespeed.lab.client;

import java.io.IOException;

/**
 * "Simplifying the buffer operation": compact on demand, the body still copied. The article found
 * this simpler code faster.
 */
final class ChannelCompactClient extends ChannelLoop {
    @Override
    boolean ensure(int len) throws IOException {
        return compactOnDemand(len);
    }

    @Override
    void deliver(Receiver receiver, int type, int len) throws IOException {
        deliverCopy(receiver, type, len);
    }
}
