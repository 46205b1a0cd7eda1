"""What rules read: the cheap `Outline` of a transcript and the `Context` a check gets."""
