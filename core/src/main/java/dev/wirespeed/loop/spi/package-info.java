/**
 * What a platform implements to carry the loops of a {@link dev.wirespeed.loop.LoopGroup}: a
 * {@link dev.wirespeed.loop.spi.LoopTransport} of listeners, connections (accepted and connected) and
 * a poller. Users pick one; they do not call it.
 */
package dev.wirespeed.loop.spi;
