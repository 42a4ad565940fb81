// audiograph web page: the microphone's AudioWorklet ("Join with microphone"). It runs on the audio thread,
// every 128 frames, mixes the input to mono, converts it to 16-bit signed little-endian PCM at the context's
// rate (the page asks for a 16 kHz AudioContext, so the browser resamples) and posts one message of
// `frames` frames (20 ms) at a time to the page, which sends it over the participant audio WebSocket.
'use strict';

class PCMCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const frames = options && options.processorOptions && options.processorOptions.frames;
    this.frames = Number.isInteger(frames) && frames > 0 ? frames : 320;
    this.block = new Int16Array(this.frames);
    this.filled = 0;
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const length = input[0].length;
    for (let index = 0; index < length; index++) {
      let sum = 0;
      for (let channel = 0; channel < input.length; channel++) sum += input[channel][index];
      const sample = Math.max(-1, Math.min(1, sum / input.length));
      this.block[this.filled++] = sample < 0 ? Math.round(sample * 32768) : Math.round(sample * 32767);
      if (this.filled === this.frames) {
        // Int16Array is little-endian on every platform browsers run on; the buffer is handed over, not copied.
        this.port.postMessage(this.block.buffer, [this.block.buffer]);
        this.block = new Int16Array(this.frames);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('pcm-capture', PCMCapture);
