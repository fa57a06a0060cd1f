#pragma once
// Exact line integrals through a phantom made of ellipsoids, for parallel-beam and cone-beam (flat or
// curved detector) scans in the engine's conventions (README "Geometries and coordinate conventions"):
// data that no voxel model fits exactly, and the same object sampled on a recon grid to measure errors.

#include "mbir/ConeBeamGeometry.h"
#include "mbir/ParallelBeamGeometry.h"
#include "mbir/Phantom.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

namespace mbir::test {

using Point3 = std::array<double, 3>; // object frame (x~, y~, z~): columns, rows, slices

// A phantom whose ellipsoids are given in [-1, 1] coordinates (mbir::PhantomEllipsoid: x along recon rows,
// y along columns, z along slices), placed on a recon grid the way sheppLoganLowDynamicRange() places it:
// -1 and 1 at the centres of the first and last voxels of each axis.
class AnalyticPhantom
{
public:
  AnalyticPhantom(const DetectorAndGrid &       grid,
                  double                        sliceOffset = 0.0,
                  std::vector<PhantomEllipsoid> ellipsoids = sheppLoganLowDynamicRangeEllipsoids())
    : m_Ellipsoids(std::move(ellipsoids))
    , m_Shape(grid.reconShape)
    , m_Pitch{ grid.deltaVoxel, grid.deltaY(), grid.deltaZ() }
    , m_SliceOffset(sliceOffset)
  {
    const int sizes[3] = { m_Shape.cols, m_Shape.rows, m_Shape.slices };
    for (int a = 0; a < 3; ++a)
    {
      if (sizes[a] < 2)
        throw std::invalid_argument("AnalyticPhantom needs at least 2 voxels along each axis");
      m_HalfWidth[a] = m_Pitch[a] * (sizes[a] - 1) / 2.0;
    }
    const double pi = std::acos(-1.0);
    for (const PhantomEllipsoid & e : m_Ellipsoids)
    {
      m_Cos.push_back(std::cos(e.angleDegrees * pi / 180.0));
      m_Sin.push_back(std::sin(e.angleDegrees * pi / 180.0));
    }
  }

  // Integral of the phantom along the whole line through p in direction d (any length), in ALU.
  double
  lineIntegral(const Point3 & p, const Point3 & d) const
  {
    const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const Point3 q = toUnit(p, false), e = toUnit({ d[0] / length, d[1] / length, d[2] / length }, true);
    double       sum = 0.0;
    for (std::size_t n = 0; n < m_Ellipsoids.size(); ++n)
    {
      const PhantomEllipsoid & s = m_Ellipsoids[n];
      // The line in the ellipsoid's own frame, where it is the unit sphere: r(t) = r0 + t r1.
      const double x = q[0] - s.x0, y = q[1] - s.y0;
      const double r0[3] = { (m_Cos[n] * x + m_Sin[n] * y) / s.a,
                             (-m_Sin[n] * x + m_Cos[n] * y) / s.b,
                             (q[2] - s.z0) / s.c };
      const double r1[3] = { (m_Cos[n] * e[0] + m_Sin[n] * e[1]) / s.a,
                             (-m_Sin[n] * e[0] + m_Cos[n] * e[1]) / s.b,
                             e[2] / s.c };
      const double A = r1[0] * r1[0] + r1[1] * r1[1] + r1[2] * r1[2];
      const double B = r0[0] * r1[0] + r0[1] * r1[1] + r0[2] * r1[2];
      const double C = r0[0] * r0[0] + r0[1] * r0[1] + r0[2] * r0[2] - 1.0;
      const double disc = B * B - A * C;
      if (disc > 0.0 && A > 0.0)
        sum += s.intensity * 2.0 * std::sqrt(disc) / A; // chord length in t, which is in ALU
    }
    return sum;
  }

  double
  valueAt(const Point3 & p) const
  {
    const Point3 q = toUnit(p, false);
    double       value = 0.0;
    for (std::size_t n = 0; n < m_Ellipsoids.size(); ++n)
    {
      const PhantomEllipsoid & s = m_Ellipsoids[n];
      const double             x = q[0] - s.x0, y = q[1] - s.y0, z = q[2] - s.z0;
      const double             xr = (m_Cos[n] * x + m_Sin[n] * y) / s.a, yr = (-m_Sin[n] * x + m_Cos[n] * y) / s.b;
      if (xr * xr + yr * yr + z * z / (s.c * s.c) <= 1.0)
        value += s.intensity;
    }
    return value;
  }

  // The phantom averaged over sub^3 points of each voxel of the grid, (rows, cols, slices).
  std::vector<float>
  sampled(int sub = 4) const
  {
    std::vector<float> volume(m_Shape.size());
    for (int i = 0; i < m_Shape.rows; ++i)
      for (int j = 0; j < m_Shape.cols; ++j)
        for (int k = 0; k < m_Shape.slices; ++k)
        {
          double sum = 0.0;
          for (int a = 0; a < sub; ++a)
            for (int b = 0; b < sub; ++b)
              for (int c = 0; c < sub; ++c)
                sum +=
                  valueAt({ m_Pitch[0] * (j + (b + 0.5) / sub - 0.5 - (m_Shape.cols - 1) / 2.0),
                            m_Pitch[1] * (i + (a + 0.5) / sub - 0.5 - (m_Shape.rows - 1) / 2.0),
                            m_Pitch[2] * (k + (c + 0.5) / sub - 0.5 - (m_Shape.slices - 1) / 2.0) + m_SliceOffset });
          volume[(static_cast<std::size_t>(i) * m_Shape.cols + j) * m_Shape.slices + k] =
            static_cast<float>(sum / (sub * sub * sub));
        }
    return volume;
  }

private:
  // Object frame to the phantom's [-1, 1] frame (x along rows = y~, y along columns = x~); a direction
  // is only scaled.
  Point3
  toUnit(const Point3 & p, bool direction) const
  {
    return { p[1] / m_HalfWidth[1],
             p[0] / m_HalfWidth[0],
             (p[2] - (direction ? 0.0 : m_SliceOffset)) / m_HalfWidth[2] };
  }

  std::vector<PhantomEllipsoid> m_Ellipsoids;
  std::vector<double>           m_Cos, m_Sin;
  ReconShape                    m_Shape;
  Point3                        m_Pitch;     // x~, y~, z~
  Point3                        m_HalfWidth; // from the grid centre to the last voxel centre, x~, y~, z~
  double                        m_SliceOffset;
};

namespace analytic_detail {

// Scanner frame (x along channels, y toward the source) to object frame for view angle beta.
inline Point3
toObject(const Point3 & s, double cosB, double sinB)
{
  return { s[0] * cosB + s[1] * sinB, -s[0] * sinB + s[1] * cosB, s[2] };
}

// Each detector cell averaged over sub x sub rays; ray(view, u, w, point, direction) sets a scanner-frame
// ray through detector coordinates (u, w).
template<typename Ray>
std::vector<float>
project(const DetectorAndGrid & g, const std::vector<float> & angles, const AnalyticPhantom & phantom, int sub, Ray ray)
{
  const SinogramShape & s = g.sinogramShape;
  std::vector<float>    sino(static_cast<std::size_t>(s.views) * s.rows * s.channels);
#pragma omp parallel for schedule(dynamic)
  for (int v = 0; v < s.views; ++v)
  {
    const double cosB = std::cos(angles[v]), sinB = std::sin(angles[v]);
    for (int m = 0; m < s.rows; ++m)
      for (int n = 0; n < s.channels; ++n)
      {
        double sum = 0.0;
        for (int a = 0; a < sub; ++a)
          for (int b = 0; b < sub; ++b)
          {
            const double u =
              (n + (b + 0.5) / sub - 0.5 - (s.channels - 1) / 2.0) * g.deltaDetChannel - g.detChannelOffset;
            const double w = (m + (a + 0.5) / sub - 0.5 - (s.rows - 1) / 2.0) * g.deltaDetRow - g.detRowOffset;
            Point3       p, d;
            ray(v, u, w, p, d);
            sum += phantom.lineIntegral(toObject(p, cosB, sinB), toObject(d, cosB, sinB));
          }
        sino[(static_cast<std::size_t>(v) * s.rows + m) * s.channels + n] = static_cast<float>(sum / (sub * sub));
      }
  }
  return sino;
}

} // namespace analytic_detail

// Parallel beam: rays along -y at x = u, z~ = w (detector row m is slice m).
inline std::vector<float>
analyticProjection(const ParallelBeamGeometry & g, const AnalyticPhantom & phantom, int sub = 3)
{
  return analytic_detail::project(g, g.angles, phantom, sub, [](int, double u, double w, Point3 & p, Point3 & d) {
    p = { u, 0.0, w };
    d = { 0.0, -1.0, 0.0 };
  });
}

// Cone beam: from the source (0, S, h_v) to the detector point, on the plane y = S - D (flat) or the
// cylinder of radius D around the source (curved, u an arc length).
inline std::vector<float>
analyticProjection(const ConeBeamGeometry & g, const AnalyticPhantom & phantom, int sub = 3)
{
  const double S = g.sourceIsoDist, D = g.sourceDetectorDist;
  return analytic_detail::project(g, g.angles, phantom, sub, [&](int v, double u, double w, Point3 & p, Point3 & d) {
    const double h = g.helicalZShifts.empty() ? 0.0 : g.helicalZShifts[v];
    p = { 0.0, S, h };
    if (g.curvedDetector)
      d = { D * std::sin(u / D), -D * std::cos(u / D), w };
    else
      d = { u, -D, w };
  });
}

// Gaussian noise whose standard deviation grows as the square root of the line integral (photon noise
// in -log data, roughly), scaled so that ||y|| / ||noise|| is snrDb.
inline void
addPoissonLikeNoise(std::vector<float> & sino, double snrDb, unsigned seed)
{
  double power = 0.0, variance = 0.0;
  for (const float y : sino)
  {
    power += double(y) * y;
    variance += std::fabs(y) + 1e-3;
  }
  const double                     scale = std::sqrt(power / variance) * std::pow(10.0, -snrDb / 20.0);
  std::mt19937                     engine(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (float & y : sino)
    y += static_cast<float>(scale * std::sqrt(std::fabs(y) + 1e-3) * normal(engine));
}

// Gaussian noise of one standard deviation, rms(y) * 10^(-snrDb/20), as mbir-project adds.
inline void
addGaussianNoise(std::vector<float> & sino, double snrDb, unsigned seed)
{
  double power = 0.0;
  for (const float y : sino)
    power += double(y) * y;
  const double                     sigma = std::sqrt(power / double(sino.size())) * std::pow(10.0, -snrDb / 20.0);
  std::mt19937                     engine(seed);
  std::normal_distribution<double> normal(0.0, sigma);
  for (float & y : sino)
    y += static_cast<float>(normal(engine));
}

} // namespace mbir::test
