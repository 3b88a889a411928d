package io.sharegpu.agent.gpu;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The NVML functions the agent calls, bound by JNA to {@code libnvidia-ml.so.1} (shipped with the
 * driver; no CUDA toolkit needed). Every function returns an {@code nvmlReturn_t}; structures are
 * passed as raw memory whose layout {@link NvmlInventory} documents.
 */
public interface NvmlLibrary extends Library {

  int NVML_SUCCESS = 0;
  int NVML_ERROR_NOT_SUPPORTED = 3;
  int NVML_ERROR_NOT_FOUND = 6;
  int NVML_ERROR_INSUFFICIENT_SIZE = 7;

  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlSystemGetDriverVersion(byte[] version, int length);

  int nvmlDeviceGetCount_v2(IntByReference count);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  /** {@code nvmlMemory_v2_t}: version (uint), total, reserved, free, used (ulonglong); 40 bytes. */
  int nvmlDeviceGetMemoryInfo_v2(Pointer device, Pointer memory);

  /** {@code nvmlUtilization_t}: gpu, memory (uint percent); 8 bytes. */
  int nvmlDeviceGetUtilizationRates(Pointer device, Pointer utilization);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference current, IntByReference pending);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);

  /**
   * {@code nvmlDeviceAttributes_t}: multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount,
   * sharedEncoderCount, sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount,
   * computeInstanceSliceCount (uint each), memorySizeMB (ulonglong); 40 bytes.
   */
  int nvmlDeviceGetAttributes_v2(Pointer device, Pointer attributes);

  /**
   * {@code nvmlProcessInfo_t[]}: pid (uint), usedGpuMemory (ulonglong, at offset 8), gpuInstanceId,
   * computeInstanceId (uint); 24 bytes each.
   */
  int nvmlDeviceGetComputeRunningProcesses_v3(Pointer device, IntByReference count, Pointer infos);
}
