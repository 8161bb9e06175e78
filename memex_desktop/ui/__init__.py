"""The Qt user interface: main window, panes, models, dialogs and the TaskRunner."""
