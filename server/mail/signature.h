// The signature every mail the robot writes ends with (RFC 3676 "-- " separator).
#pragma once

namespace adj::mail {

inline constexpr const char* kSignature = "-- \nAdjutant, the turn adjudicator\n";

}  // namespace adj::mail
