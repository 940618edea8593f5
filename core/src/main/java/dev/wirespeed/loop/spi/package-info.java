/**
 * What a platform implements to carry {@link dev.wirespeed.loop.FrameServer}'s loops: a
 * {@link dev.wirespeed.loop.spi.LoopTransport} of listeners, connections and a poller. Users pick one;
 * they do not call it.
 */
package dev.wirespeed.loop.spi;
