#pragma once

#include <Qt>

// Roles the item models of src/core/itemmodels answer besides the standard ones. Colours and icons are the
// views' business (the core has no QtGui): a view reads these and paints.
namespace ModelRoles {
enum : int
{
    CandidateId = Qt::UserRole + 1, // QString
    Status,                         // int: an EvalStatus, or Evaluating / Pending below
    InBeam,                         // bool: in the latest beam
    IsBest,                         // bool: the session's best kernel
    Failed,                         // bool: evaluated and not usable (shown dimmed, with the error on hover)
    SortValue,                      // a number (or text) to sort the column by
    SessionId,                      // QString
    Live,                           // bool: a session a process is running now
};
// Status values that are not an EvalStatus.
constexpr int Evaluating = -1;
constexpr int Pending = -2;
} // namespace ModelRoles
