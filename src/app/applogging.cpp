#include "applogging.h"

Q_LOGGING_CATEGORY(lcApp, "accelopt.app")
Q_LOGGING_CATEGORY(lcEditor, "accelopt.app.editor")
