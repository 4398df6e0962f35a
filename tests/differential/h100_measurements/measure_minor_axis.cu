// Minor-axis sweeps for tex2DGrad with maxAnisotropy 16 (issue 15, h-U):
// axis-aligned footprints dx = (a, 0), dy = (0, b) texels, where the area is
// the single product a b. Part L: a fixed (12 values), b swept over every
// 10-bit mantissa of three octaves below a, each with 0, 1/4, 2/4, 3/4 of a
// unit of its 10th bit added. Part M: b fixed (5 values), a swept so. Each
// query is fetched with mipmapLevelBias 0 and 0.5, so that one of the two
// has its level's fraction where the sharpened blend (2f - 128) is linear.
//   nvcc -O2 -arch=sm_90 -std=c++17 measure_minor_axis.cu -o m && ./m > minor_axis.txt
#include "level_mipmap_fetches.cuh"

int main() {
  const int side = 1024, levels = 11;
  cudaMipmappedArray_t m = level_mipmap(side, levels, false);
  cudaTextureObject_t t0 = make_texture(m, levels, 16, 0.0f), t1 = make_texture(m, levels, 16, 0.5f);
  std::vector<Query> q;
  struct Tag {
    char part;
    int fixed, octave, n, s;
  };
  std::vector<Tag> tags;
  const float k = 1.0f / side;
  auto add = [&](char part, int fixed, int octave, int n, int s, float a, float b) {
    q.push_back({make_float4(a * k, 0, 0, 0), make_float4(0, b * k, 0, 0)});
    tags.push_back({part, fixed, octave, n, s});
  };
  const int a_mantissas[] = {512, 520, 555, 600, 640, 692, 700, 777, 850, 862, 911, 1000};
  for (int am : a_mantissas)
    for (int o = 1; o <= 3; ++o)
      for (int n = 512; n < 1024; ++n)
        for (int s = 0; s < 4; ++s) add('L', am, o, n, s, am / 8.0f, (n + s / 4.0f) / float(8 << o));
  const int b_mantissas[] = {512, 600, 700, 850, 1000};
  for (int bm : b_mantissas)
    for (int n = 512; n < 1024; ++n)
      for (int s = 0; s < 4; ++s) add('M', bm, 0, n, s, (n + s / 4.0f) / 8.0f, bm / 32.0f);
  std::vector<float> v0 = run(fetch_2d, t0, q), v1 = run(fetch_2d, t1, q);
  for (size_t i = 0; i < q.size(); ++i)
    printf("%c %d %d %d %d %a %a %a %a\n", tags[i].part, tags[i].fixed, tags[i].octave, tags[i].n, tags[i].s, q[i].dx.x,
           q[i].dy.y, v0[i], v1[i]);
  cudaError_t e = cudaGetLastError();
  if (e) fprintf(stderr, "error %s\n", cudaGetErrorString(e));
}
