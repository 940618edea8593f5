/**
 * The {@code epoll(7)} transport of {@link dev.wirespeed.loop.FrameServer}'s loops:
 * {@link dev.wirespeed.linux.epoll.EpollTransport}.
 */
package dev.wirespeed.linux.epoll;
