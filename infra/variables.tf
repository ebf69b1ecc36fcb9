variable "region" {
  description = "Region of the bucket, the registry and the functions (s.yaml's ENGRAM_REGION)."
  type        = string
  default     = "ap-southeast-1"
}

variable "bucket_name" {
  description = "OSS bucket that holds every tenant's snapshot generations (globally unique)."
  type        = string
}

variable "prefix" {
  description = "Key prefix of the tenant stores inside the bucket (s.yaml's ENGRAM_PREFIX)."
  type        = string
  default     = "engram"
}

variable "cold_after_days" {
  description = "Generations untouched this long move to Infrequent Access (dormant tenants, kept old generations)."
  type        = number
  default     = 30
}

variable "acr_namespace" {
  description = "Container Registry namespace for the function image."
  type        = string
  default     = "engram"
}

variable "acr_repository" {
  description = "Container Registry repository for the function image."
  type        = string
  default     = "engram"
}

variable "role_name" {
  description = "RAM role the three functions run as."
  type        = string
  default     = "engram-functions"
}

variable "sleep_function_name" {
  description = "The function the timer's fan-out invokes asynchronously (s.yaml's engram-consolidate)."
  type        = string
  default     = "engram-consolidate"
}
